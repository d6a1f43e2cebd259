/**
 * One cycle of background tests: `workers` at a time, in the order the cycle policy gave.
 *
 * - A server not ready (still connecting, or dialling through a server without a result in this
 *   run / being retested) is skipped and retried 3 s later; after 10 tries it is tested anyway.
 * - At most 2 probes at a time go to servers behind one front address.
 * - A failure that happened while the batch was busy is confirmed once more, alone, after the
 *   batch, before it counts (both outcomes are counted for the observation).
 * - A failure counts only if the network is there when it comes (the direct connectivity check of
 *   spec/observatory.md, one check serving the failures of a few seconds): a network lost in the
 *   middle of a cycle must not leave every test still in flight as a failure, the 24 h penalty
 *   Auto's rules forbid. The check is made when the failure comes, not when the cycle ends: a
 *   network back by then (a four-second elevator ride) would make failures of the outage count.
 * - Once a failure came while the network was down, the cycle dispatches nothing more: every test
 *   would fail for the same reason. The servers left are still due and the next cycle tests them.
 * - Failures are held until the cycle has its first success: when every test of the cycle failed,
 *   the caller decides (network down → discard; another URL left → repeat; else record).
 *
 * - A scheduled cycle may carry a start moment per server (policy/spread.ts): a test is not
 *   dispatched before its moment, so the probes of a cycle spread over its window.
 *
 * The hung-test guard and single-flight joining live in Flights; the cycle only waits.
 */
import type { ProbeOutcome } from '../../shared/domain/measurement';
import type { ServerId } from '../../shared/domain/server';
import type { Clock, TimerHandle } from '../clock';
import { isBusyBatch, mayProbeFront } from './policy/batch';
import { NOT_READY_MAX_TRIES, NOT_READY_RETRY_MS } from './policy/timing';
import type { FlightResult, Flights } from './flights';
import type { Readiness } from './ports';

export interface CycleDeps {
  clock: Clock;
  flights: Flights;
  frontOf: (id: ServerId) => string;
  /** Readiness including the chain rule. */
  readiness: (id: ServerId) => Readiness;
  /** Counts a not-ready skip; returns the number of skips so far. */
  skippedNotReady: (id: ServerId, reason: string, tries: number) => void;
  notReadyTries: (id: ServerId) => number;
  /** Writes a result (a success, or a failure that counts). */
  record: (id: ServerId, result: FlightResult, note: string) => void;
  /** The server is no longer in the list (removed mid-cycle). */
  exists: (id: ServerId) => boolean;
  /** A result was written at or after `since` (an event test got there first). */
  testedSince: (id: ServerId, since: number) => boolean;
  /** Workers held by other background tests (transfer tests share the workers); absent: none. */
  busyWorkers?: () => number;
  /** Whether the user's network is up right now (a direct request answers); absent: assumed up. */
  networkUp?: () => Promise<boolean>;
  log: (line: string) => void;
}

export interface CycleConfig {
  label: string;
  ids: ServerId[];
  url: string;
  workers: number;
  timeoutMs: number;
  /** When each test may start, in ms after the cycle's start; absent: all at once. */
  startOffsets?: ReadonlyMap<ServerId, number>;
}

export interface CycleSummary {
  tested: number;
  successes: number;
  /** Failures written (confirmed or not needing confirmation). */
  failures: number;
  /** When no test succeeded: the failures, not yet written. */
  held: Map<ServerId, FlightResult>;
  confirmedFailures: number;
  overturnedFailures: number;
  /** Failures not written because the network itself was down when they came. */
  discarded: number;
  /** A failure came while the network was down: the cycle stopped dispatching. */
  networkDown: boolean;
  /** Servers the cycle did not get to (stopped by a lost network). */
  untested: number;
  cancelled: boolean;
}

export class CycleRun {
  private queue: ServerId[];
  private active = 0;
  /** Tests in flight, each with the most tests that ran beside it (how busy its batch was). */
  private running = new Set<{ peak: number }>();
  private retryTimers = new Set<TimerHandle>();
  /** Wakes the cycle at the next spread start moment while only unreleased tests are left. */
  private releaseTimer: TimerHandle | null = null;
  private held = new Map<ServerId, FlightResult>();
  private toConfirm: ServerId[] = [];
  private successSeen = false;
  private cancelled = false;
  private finishing = false;
  private summary: CycleSummary;
  private resolveDone!: (summary: CycleSummary) => void;
  readonly done: Promise<CycleSummary>;
  readonly total: number;
  private readonly startedAt: number;

  constructor(
    private readonly deps: CycleDeps,
    private readonly config: CycleConfig,
  ) {
    this.queue = [...config.ids];
    this.total = config.ids.length;
    this.startedAt = deps.clock.now();
    this.summary = { tested: 0, successes: 0, failures: 0, held: this.held, confirmedFailures: 0, overturnedFailures: 0, discarded: 0, networkDown: false, untested: 0, cancelled: false };
    this.done = new Promise((resolve) => (this.resolveDone = resolve));
  }

  start(): Promise<CycleSummary> {
    this.pump();
    return this.done;
  }

  /** Tests finished so far (for progress). */
  get finished(): number {
    return this.summary.tested;
  }

  /** Stops dispatching (idle, network change, shutdown); resolves once tests in flight return. */
  cancel(): void {
    this.cancelled = true;
    this.summary.cancelled = true;
    this.queue = [];
    this.toConfirm = [];
    for (const timer of this.retryTimers) timer.cancel();
    this.retryTimers.clear();
    this.releaseTimer?.cancel();
    this.releaseTimer = null;
    this.maybeFinish();
  }

  /** Something ended elsewhere (a probe freed a front address): try to dispatch again. */
  pump(): void {
    while (!this.cancelled && !this.finishing && this.active + (this.deps.busyWorkers?.() ?? 0) < this.config.workers) {
      const index = this.queue.findIndex((id) => this.released(id) && mayProbeFront(this.deps.flights.probesToFront(this.deps.frontOf(id))));
      if (index < 0) {
        this.wakeAtNextRelease();
        break;
      }
      const [id] = this.queue.splice(index, 1) as [ServerId];
      // Gone, or tested since the cycle began (an event test, a joined flight): nothing to do.
      if (!this.deps.exists(id) || this.deps.testedSince(id, this.startedAt)) continue;
      const readiness = this.deps.readiness(id);
      const tries = this.deps.notReadyTries(id);
      if (!readiness.ready && tries < NOT_READY_MAX_TRIES) {
        this.deps.skippedNotReady(id, readiness.reason, tries + 1);
        const timer = this.deps.clock.after(NOT_READY_RETRY_MS, () => {
          this.retryTimers.delete(timer);
          this.queue.unshift(id);
          this.pump();
        });
        this.retryTimers.add(timer);
        continue;
      }
      const note = readiness.ready ? this.config.label : `${this.config.label}, tested anyway after ${tries} not-ready tries`;
      void this.test(id, note);
    }
    this.maybeFinish();
  }

  private async test(id: ServerId, note: string): Promise<void> {
    this.active++;
    const entry = { peak: 0 };
    this.running.add(entry);
    for (const other of this.running) other.peak = Math.max(other.peak, this.running.size);
    const result = await this.deps.flights.probe(id, this.config.url, this.config.timeoutMs).promise;
    const trusted = result.outcome.ok || this.cancelled || (await this.networkUp());
    this.running.delete(entry);
    const busy = isBusyBatch(entry.peak, this.config.workers);
    this.active--;
    this.summary.tested++;
    if (!trusted) {
      this.discard(id, result);
    } else if (this.cancelled) {
      // Stopped for idle or a network change: successes still count, failures are not trusted.
      if (result.outcome.ok) this.deps.record(id, result, note);
    } else if (result.outcome.ok) {
      this.summary.successes++;
      this.deps.record(id, result, note);
      if (!this.successSeen) {
        this.successSeen = true;
        for (const [heldId, heldResult] of this.held) this.failed(heldId, heldResult, busy, note);
        this.held.clear();
      }
    } else if (!this.successSeen) {
      this.held.set(id, result);
    } else {
      this.failed(id, result, busy, note);
    }
    this.pump();
  }

  private startMoment(id: ServerId): number {
    return this.startedAt + (this.config.startOffsets?.get(id) ?? 0);
  }

  private released(id: ServerId): boolean {
    return this.startMoment(id) <= this.deps.clock.now();
  }

  private wakeAtNextRelease(): void {
    if (this.releaseTimer || this.cancelled) return;
    const waiting = this.queue.filter((id) => !this.released(id)).map((id) => this.startMoment(id));
    if (waiting.length === 0) return;
    this.releaseTimer = this.deps.clock.after(Math.max(0, Math.min(...waiting) - this.deps.clock.now()), () => {
      this.releaseTimer = null;
      this.pump();
    });
  }

  private networkUp(): Promise<boolean> {
    return this.deps.networkUp ? this.deps.networkUp() : Promise.resolve(true);
  }

  private discard(id: ServerId, result: FlightResult): void {
    this.summary.discarded++;
    this.deps.log(`${describe(result.outcome)} for ${id} while a direct request failed too: the network is down, not counted`);
    if (this.summary.networkDown) return;
    this.summary.networkDown = true;
    this.summary.untested = this.queue.length + this.toConfirm.length + this.retryTimers.size;
    this.queue = [];
    this.toConfirm = [];
    for (const timer of this.retryTimers) timer.cancel();
    this.retryTimers.clear();
  }

  private failed(id: ServerId, result: FlightResult, busy: boolean, note: string): void {
    if (busy) {
      this.toConfirm.push(id);
      this.deps.log(`${describe(result.outcome)} for ${id} inside a busy batch: confirming alone after the batch`);
    } else {
      this.summary.failures++;
      this.deps.record(id, result, note);
    }
  }

  private maybeFinish(): void {
    if (this.finishing || this.active > 0 || this.queue.length > 0 || this.retryTimers.size > 0) return;
    this.finishing = true;
    void this.confirmAlone().then(() => this.resolveDone(this.summary));
  }

  /** Retests, one at a time with no batch probe beside it, the failures seen in a busy batch. */
  private async confirmAlone(): Promise<void> {
    while (!this.cancelled && this.toConfirm.length > 0) {
      const id = this.toConfirm.shift() as ServerId;
      if (!this.deps.exists(id)) continue;
      const result = await this.deps.flights.probe(id, this.config.url, this.config.timeoutMs).promise;
      if (this.cancelled && !result.outcome.ok) break;
      if (!result.outcome.ok && !(await this.networkUp())) {
        this.discard(id, result);
        continue;
      }
      if (result.outcome.ok) {
        this.summary.overturnedFailures++;
        this.summary.successes++;
      } else {
        this.summary.confirmedFailures++;
        this.summary.failures++;
      }
      this.deps.record(id, result, `${this.config.label}, confirmed alone`);
    }
  }
}

export function describe(outcome: ProbeOutcome): string {
  return outcome.ok ? `${outcome.delayMs} ms` : `failed (${outcome.error.kind}: ${outcome.error.message})`;
}
