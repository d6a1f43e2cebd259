/**
 * Runs the transfer tests (policy/transfer.ts): after a server's delay test answers, while the
 * connection is in use, when the server has no transfer result of this run or its result is older
 * than `interval`, a download of `transferTestBytes` through the server. One per server at a time;
 * they share the `workers` with the delay tests (a transfer starts only while fewer than `workers`
 * tests of either kind run, and the cycle counts running transfers among its workers), so the
 * extra load is one request per server per interval and never more tests at once than before.
 */
import type { ServerId } from '../../shared/domain/server';
import type { TransferTest } from '../../shared/domain/transfer';
import type { MonitorSettings } from '../../shared/settings';
import { type Clock, sleep } from '../clock';
import { type ListenerErrorSink, Signal } from '../events';
import type { ActivityTracker } from './activity';
import type { Flights } from './flights';
import { hungGuardMs, NOT_READY_MAX_TRIES, NOT_READY_RETRY_MS } from './policy/timing';
import { judgeTransfer, TRANSFER_STALL_MS, type TransferCourse, transferDeadlineMs, transferDue } from './policy/transfer';
import type { Readiness, ServerProber } from './ports';
import type { ServerRecords } from './records';
import type { ResultWriter } from './results';

export interface TransferTestsOptions {
  prober: ServerProber;
  clock: Clock;
  settings: () => MonitorSettings;
  /** The delay tests running now (they share the workers). */
  flights: Pick<Flights, 'probesRunning'>;
  /** Whether background testing runs now (started, and the connection in use). */
  activity: Pick<ActivityTracker, 'isActive'>;
  /** Where each server's latest transfer result is kept. */
  records: Pick<ServerRecords, 'get'>;
  /** Where a result is written. */
  writer: Pick<ResultWriter, 'transfer'>;
  /** Whether a background transfer test of the server may run (policy/test-budget.ts: the servers in focus). */
  mayTest?: (id: ServerId) => boolean;
  /** The daily test budget is spent: no transfer test runs, not even one asked for. */
  capped?: () => boolean;
  /** Whether the prober can reach the server now (a core still starting cannot). */
  readiness?: (id: ServerId) => Readiness;
  /** Whether the server's TLS ClientHello is fragmented (noted on its result). */
  fragmentOn?: (id: ServerId) => boolean;
  onListenerError?: ListenerErrorSink;
}

/** How often a test waiting for the prober looks again. */
const READINESS_POLL_MS = 250;

export class TransferTests {
  private readonly waiting: ServerId[] = [];
  /** Each running transfer with what it will resolve to (its result, null when cut). */
  private readonly running = new Map<ServerId, Promise<TransferTest | null>>();
  private controller = new AbortController();
  /** A transfer ended: a cycle waiting for a worker may go on. */
  readonly ended: Signal<void>;

  constructor(private readonly options: TransferTestsOptions) {
    this.ended = new Signal('transfer test ended', options.onListenerError);
  }

  /** Transfers running now (they hold workers). */
  get runningCount(): number {
    return this.running.size;
  }

  /** A delay test of `id` just answered at `at`: queue its transfer test if one is due. */
  considerAfterAnswer(id: ServerId, at: number): void {
    const { settings, activity, records } = this.options;
    const { transferTestBytes, intervalMs } = settings();
    // Asked first: reading the focus may itself queue this server's test (it just came into focus).
    if (this.options.mayTest && !this.options.mayTest(id)) return;
    if (transferTestBytes <= 0 || !activity.isActive() || this.running.has(id) || this.waiting.includes(id)) return;
    if (!transferDue(records.get(id)?.transfer ?? null, at, intervalMs, intervalMs / 2)) return;
    this.waiting.push(id);
    this.pump();
  }

  /**
   * A transfer test of `id` now, beside the workers (an event asked, as for the delay tests an
   * event triggers); one running already is joined. Resolves with its result, null when cut.
   */
  testNow(id: ServerId): Promise<TransferTest | null> {
    const running = this.running.get(id);
    if (running) return running;
    if (this.options.capped?.()) return Promise.resolve(null);
    const queued = this.waiting.indexOf(id);
    if (queued >= 0) this.waiting.splice(queued, 1);
    return this.start(id);
  }

  /** Starts waiting transfers while workers are free (called again whenever a test ends). */
  pump(): void {
    const workers = this.options.settings().workers;
    while (this.waiting.length > 0 && this.options.activity.isActive() && this.running.size + this.options.flights.probesRunning() < workers) {
      void this.start(this.waiting.shift() as ServerId);
    }
  }

  private start(id: ServerId): Promise<TransferTest | null> {
    const done = this.run(id, this.controller.signal).finally(() => {
      this.running.delete(id);
      this.pump();
      this.ended.emit();
    });
    this.running.set(id, done);
    return done;
  }

  /** Idle or shutting down: queued transfers are dropped, running ones cut (a cut test is no result). */
  stop(): void {
    this.waiting.length = 0;
    this.controller.abort();
    this.controller = new AbortController();
  }

  private reachable(id: ServerId): boolean {
    return this.options.readiness?.(id).ready ?? true;
  }

  /**
   * Waits (up to `ms`) until the prober can reach the server. A test asked for while the prober
   * core starts (at a connect, right after a switch) would otherwise record "failed" for a server
   * that was never tried, and no transfer test would follow for half an interval.
   */
  private async untilReachable(id: ServerId, ms: number, signal: AbortSignal): Promise<boolean> {
    const { clock } = this.options;
    const until = clock.now() + ms;
    while (!this.reachable(id)) {
      if (signal.aborted || clock.now() >= until) return false;
      await sleep(clock, READINESS_POLL_MS, signal);
    }
    return !signal.aborted;
  }

  private async run(id: ServerId, signal: AbortSignal): Promise<TransferTest | null> {
    const { clock, prober } = this.options;
    const settings = this.options.settings();
    const bytes = settings.transferTestBytes;
    const deadlineMs = transferDeadlineMs(bytes, settings.urlTestTimeoutMs);
    if (!(await this.untilReachable(id, NOT_READY_RETRY_MS * NOT_READY_MAX_TRIES, signal))) return null;
    const fragment = this.options.fragmentOn?.(id) ?? false;
    // A download can hang where a probe can: the guard ends the wait.
    const guard = new AbortController();
    const guardMs = hungGuardMs(deadlineMs);
    const abandoned = sleep(clock, guardMs, guard.signal).then(
      (): TransferCourse => ({ kind: 'error', error: { kind: 'timeout', message: `the transfer test did not return within ${guardMs / 1000} s` } }),
    );
    const downloaded = prober.download(id, {
      url: settings.transferTestUrl.replaceAll('{bytes}', String(bytes)),
      maxBytes: bytes,
      headersTimeoutMs: settings.urlTestTimeoutMs,
      stallMs: TRANSFER_STALL_MS,
      deadlineMs,
      signal,
    });
    const course = await Promise.race([downloaded, abandoned]).finally(() => guard.abort());
    if (signal.aborted) return null;
    const test: TransferTest = { ...judgeTransfer(course, bytes), at: clock.now(), expectedBytes: bytes, fragment, fromCache: false };
    this.options.writer.transfer(id, test);
    return test;
  }
}
