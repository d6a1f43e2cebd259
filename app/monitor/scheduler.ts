/**
 * When background tests run (spec/monitor.md "When tests run", "URLs"): one cycle at a time,
 * every `interval` while the connection is used; marked servers (test all, network change)
 * join the next cycle; a cycle with no successful test repeats with the next URL, unless a direct
 * request shows the network itself is down, in which case its failures are discarded. A network
 * change cuts the tests in flight and retests everything 2 s after the last change.
 */
import type { ServerId } from '../../shared/domain/server';
import type { TestProgress } from '../../shared/ipc/contract';
import type { MonitorSettings } from '../../shared/settings';
import type { Clock, TimerHandle } from '../clock';
import { type ListenerErrorSink, Signal } from '../events';
import type { ActivityTracker } from './activity';
import { CycleRun, type CycleSummary } from './cycle';
import type { Flights } from './flights';
import { cycleOrder } from './policy/cycle-order';
import { spreadStarts, spreadWindowMs } from './policy/spread';
import { NETWORK_SETTLE_MS } from './policy/timing';
import type { DirectCheck } from './ports';
import type { ChainReadiness } from './readiness';
import type { ServerRecords } from './records';
import type { ResultWriter } from './results';
import type { ServerDirectory } from './servers';
import type { NetworkSettling } from './settle';
import type { TestUrls } from './test-urls';
import type { TransferTests } from './transfer-tests';

const CONNECTIVITY_REUSE_MS = 3000;

export interface SchedulerDeps {
  clock: Clock;
  flights: Flights;
  records: ServerRecords;
  settings: () => MonitorSettings;
  directCheck?: DirectCheck;
  servers: Pick<ServerDirectory, 'ids' | 'get' | 'frontOf'>;
  urls: TestUrls;
  settling: NetworkSettling;
  /** Whether cycles may run now (started and not idle). */
  activity: Pick<ActivityTracker, 'isActive' | 'running'>;
  readiness: Pick<ChainReadiness, 'of'>;
  writer: Pick<ResultWriter, 'url' | 'notReady'>;
  /** Transfer tests share the workers. */
  transfers: Pick<TransferTests, 'runningCount'>;
  /** Draws the spread start moments of scheduled cycles. */
  random: () => number;
  /** The due servers that may have delay probes now (policy/test-budget.ts: at the daily cap, only those in focus). */
  delayTargets?: (ids: readonly ServerId[]) => ServerId[];
  log: (line: string) => void;
  onListenerError?: ListenerErrorSink;
}

export class CycleScheduler {
  readonly batch = { confirmedFailures: 0, overturnedFailures: 0 };
  /** The progress of the running cycle changed. */
  readonly progressChanged: Signal<TestProgress>;
  private cycle: CycleRun | null = null;
  private count = 0;
  private timer: TimerHandle | null = null;
  private pending: string | null = null;
  private lastStartedAt = 0;
  private lastDurationMs = 0;
  private marked = new Set<ServerId>();
  /** The last direct connectivity check, shared by the failures of a few seconds. */
  private connectivity: { at: number; up: Promise<boolean> } | null = null;

  constructor(private readonly deps: SchedulerDeps) {
    this.progressChanged = new Signal('test progress', deps.onListenerError);
  }

  progress(): TestProgress {
    return this.cycle ? { running: true, done: this.cycle.finished, total: this.cycle.total } : { running: false, done: 0, total: 0 };
  }

  mark(ids: Iterable<ServerId>): void {
    for (const id of ids) this.marked.add(id);
  }

  /** A result was written: the server is no longer marked. */
  tested(id: ServerId): void {
    this.marked.delete(id);
  }

  /** Runs a cycle now, or right after the one running. */
  request(reason: string, evenIfIdle = false): void {
    if (!evenIfIdle && !this.deps.activity.isActive()) return;
    if (this.cycle) {
      this.pending ??= reason;
      return;
    }
    void this.run(reason);
  }

  /** Idle or shutting down: no new tests, the running cycle stops dispatching. */
  halt(): void {
    this.timer?.cancel();
    this.timer = null;
    this.pending = null;
    this.cycle?.cancel();
  }

  stop(): void {
    this.halt();
    this.deps.settling.stop();
  }

  /** "Test all": every server is marked and a cycle runs now (even while idle: the user asked). */
  testAll(): void {
    this.mark(this.deps.servers.ids());
    if (this.deps.activity.running) this.request('test all', true);
  }

  /** The network changed: tests in flight are cut and rerun; all servers are retested 2 s after the last change. */
  networkChanged(): void {
    const cut = this.deps.flights.cutAll();
    this.cycle?.cancel();
    this.pending = null;
    this.deps.settling.changed(() => {
      this.mark(this.deps.servers.ids());
      this.request('network change');
    });
    this.deps.log(`network changed: ${cut} test(s) in flight cut (rerun once it settles); all servers retested ${NETWORK_SETTLE_MS / 1000} s after the last change`);
  }

  private async run(reason: string): Promise<void> {
    const { clock, records } = this.deps;
    this.timer?.cancel();
    this.timer = null;
    const n = ++this.count;
    const label = `cycle ${n}`;
    const startedAt = clock.now();
    this.lastStartedAt = startedAt;
    const settings = this.deps.settings();
    const candidates = this.deps.servers.ids().map((id) => {
      const last = records.get(id)?.last;
      // A result loaded from the cache is not one of this run: due whatever its age.
      return { id, lastDelayMs: last ? last.delayMs : undefined, testedAt: last?.at ?? null, marked: this.marked.has(id) || last?.fromCache === true };
    });
    const due = cycleOrder(candidates, startedAt, settings.intervalMs, this.lastDurationMs);
    let targets = this.deps.delayTargets ? this.deps.delayTargets(due) : due;
    if (targets.length < due.length) this.deps.log(`${label}: the daily test budget is spent: ${due.length - targets.length} server(s) outside the current one and Auto's candidates keep their last results`);
    let urlIndex = Math.min(this.deps.urls.index, settings.urls.length - 1);
    // Only the cycle the interval brings is spread; a repeat with the next URL runs at once.
    let startOffsets = reason === 'interval' ? spreadStarts(targets, spreadWindowMs(settings.intervalMs), this.deps.random) : undefined;
    while (targets.length > 0) {
      const url = settings.urls[urlIndex] as string;
      const spread = startOffsets ? `, spread over ${Math.round(spreadWindowMs(settings.intervalMs) / 1000)} s` : '';
      this.deps.log(`${label} (${reason}): testing ${targets.length} server(s), ${settings.workers} at a time${spread}, with ${url}`);
      const summary = await this.runOnce(label, targets, url, settings, startOffsets);
      startOffsets = undefined;
      if (summary.cancelled || summary.tested === 0) break;
      if (summary.networkDown) {
        const left = summary.untested > 0 ? `; ${summary.untested} server(s) left for the next cycle` : '';
        this.deps.log(`${label}: a direct request failed too: the network is down, ${summary.discarded + summary.held.size} result(s) discarded${left}`);
        break;
      }
      if (summary.successes > 0) {
        this.deps.urls.use(urlIndex);
        break;
      }
      if (await this.networkIsDown(settings)) {
        this.deps.log(`${label}: every test failed and a direct request failed too: the network is down, ${summary.held.size} result(s) discarded`);
        break;
      }
      if (urlIndex + 1 < settings.urls.length) {
        urlIndex++;
        this.deps.log(`${label}: no test succeeded with ${url}: repeating with ${settings.urls[urlIndex]}`);
        targets = [...summary.held.keys()];
        continue;
      }
      for (const [id, result] of summary.held) this.deps.writer.url(id, result, label, false);
      this.deps.urls.use(0);
      break;
    }
    this.cycle = null;
    this.lastDurationMs = clock.now() - startedAt;
    this.progressed();
    const pending = this.pending;
    this.pending = null;
    if (pending) this.request(pending);
    else this.scheduleNext();
  }

  private async runOnce(label: string, ids: ServerId[], url: string, settings: MonitorSettings, startOffsets?: ReadonlyMap<ServerId, number>): Promise<CycleSummary> {
    const { records, servers, writer } = this.deps;
    const run = new CycleRun(
      {
        clock: this.deps.clock,
        flights: this.deps.flights,
        frontOf: (id) => servers.frontOf(id),
        readiness: (id) => this.deps.readiness.of(id),
        notReadyTries: (id) => records.get(id)?.notReadyTries ?? 0,
        skippedNotReady: (id, reason, tries) => writer.notReady(id, reason, tries),
        exists: (id) => servers.get(id) !== undefined,
        busyWorkers: () => this.deps.transfers.runningCount,
        record: (id, result, note) => {
          writer.url(id, result, note, false);
          this.progressed();
        },
        testedSince: (id, since) => {
          const last = records.get(id)?.last;
          return !!last && !last.fromCache && last.at >= since;
        },
        networkUp: () => this.networkUp(settings),
        log: (line) => this.deps.log(`${label}: ${line}`),
      },
      { label, ids, url, workers: settings.workers, timeoutMs: settings.urlTestTimeoutMs, startOffsets },
    );
    this.cycle = run;
    this.progressed();
    const summary = await run.start();
    this.batch.confirmedFailures += summary.confirmedFailures;
    this.batch.overturnedFailures += summary.overturnedFailures;
    if (summary.discarded > 0) this.deps.log(`${label}: ${summary.discarded} failure(s) not counted: the network was down when they came`);
    if (summary.confirmedFailures + summary.overturnedFailures > 0) {
      this.deps.log(`${label}: ${summary.confirmedFailures} failure(s) confirmed alone, ${summary.overturnedFailures} overturned`);
    }
    return summary;
  }

  /** A probe ended somewhere: the running cycle may dispatch to a front that became free. */
  probeEnded(): void {
    this.cycle?.pump();
  }

  private progressed(): void {
    if (this.progressChanged.observed) this.progressChanged.emit(this.progress());
  }

  private scheduleNext(): void {
    if (!this.deps.activity.isActive()) return;
    const { clock } = this.deps;
    const due = Math.max(0, this.lastStartedAt + this.deps.settings().intervalMs - clock.now());
    this.timer?.cancel();
    this.timer = clock.after(due, () => {
      this.timer = null;
      this.request('interval');
    });
  }

  private async networkIsDown(settings: MonitorSettings): Promise<boolean> {
    return !(await this.networkUp(settings));
  }

  /** A direct request (no proxy) to the test URL answers: one check serves the failures of 3 s. */
  private networkUp(settings: MonitorSettings): Promise<boolean> {
    const check = this.deps.directCheck;
    if (!check) return Promise.resolve(true);
    const now = this.deps.clock.now();
    if (this.connectivity && now - this.connectivity.at < CONNECTIVITY_REUSE_MS) return this.connectivity.up;
    const up = check.reachable(settings.urls[0] as string, settings.urlTestTimeoutMs).catch(() => false);
    this.connectivity = { at: now, up };
    return up;
  }
}
