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
import { CycleRun, type CycleDeps, type CycleSummary } from './cycle';
import type { FlightResult, Flights } from './flights';
import { cycleOrder } from './policy/cycle-order';
import { NETWORK_SETTLE_MS } from './policy/timing';
import type { DirectCheck } from './ports';
import type { ServerRecords } from './records';

const CONNECTIVITY_REUSE_MS = 3000;

export interface SchedulerDeps {
  clock: Clock;
  flights: Flights;
  records: ServerRecords;
  settings: () => MonitorSettings;
  directCheck?: DirectCheck;
  /** Server ids in subscription order. */
  serverIds: () => ServerId[];
  /** Whether cycles may run now (started and not idle). */
  mayTest: () => boolean;
  /** What a cycle needs of the monitor besides the flights and the clock. */
  cycleDeps: Pick<CycleDeps, 'frontOf' | 'readiness' | 'notReadyTries' | 'skippedNotReady' | 'exists' | 'busyWorkers'>;
  record: (id: ServerId, result: FlightResult, note: string) => void;
  onProgress: () => void;
  log: (line: string) => void;
}

export class CycleScheduler {
  readonly batch = { confirmedFailures: 0, overturnedFailures: 0 };
  /** Index into `urls` of the URL tests use (the last one that worked). */
  urlIndex = 0;
  private cycle: CycleRun | null = null;
  private count = 0;
  private timer: TimerHandle | null = null;
  private pending: string | null = null;
  private lastStartedAt = 0;
  private lastDurationMs = 0;
  private marked = new Set<ServerId>();
  private settleTimer: TimerHandle | null = null;
  private settleWaiters: (() => void)[] = [];
  /** The last direct connectivity check, shared by the failures of a few seconds. */
  private connectivity: { at: number; up: Promise<boolean> } | null = null;

  constructor(private readonly deps: SchedulerDeps) {}

  url(): string {
    const urls = this.deps.settings().urls;
    return urls[Math.min(this.urlIndex, urls.length - 1)] as string;
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
    if (!evenIfIdle && !this.deps.mayTest()) return;
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
    this.settleTimer?.cancel();
    this.settleTimer = null;
    for (const resolve of this.settleWaiters.splice(0)) resolve();
  }

  /** Returns how many tests in flight were cut. */
  networkChanged(): number {
    const cut = this.deps.flights.cutAll();
    this.cycle?.cancel();
    this.pending = null;
    this.settleTimer?.cancel();
    this.settleTimer = this.deps.clock.after(NETWORK_SETTLE_MS, () => {
      this.settleTimer = null;
      for (const resolve of this.settleWaiters.splice(0)) resolve();
      this.mark(this.deps.serverIds());
      this.request('network change');
    });
    return cut;
  }

  /** Resolves once the network has been quiet for 2 s (at once when it is). */
  networkSettled(): Promise<void> {
    if (!this.settleTimer) return Promise.resolve();
    return new Promise((resolve) => this.settleWaiters.push(resolve));
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
    const candidates = this.deps.serverIds().map((id) => {
      const last = records.get(id)?.last;
      // A result loaded from the cache is not one of this run: due whatever its age.
      return { id, lastDelayMs: last ? last.delayMs : undefined, testedAt: last?.at ?? null, marked: this.marked.has(id) || last?.fromCache === true };
    });
    let targets = cycleOrder(candidates, startedAt, settings.intervalMs, this.lastDurationMs);
    let urlIndex = Math.min(this.urlIndex, settings.urls.length - 1);
    while (targets.length > 0) {
      const url = settings.urls[urlIndex] as string;
      this.deps.log(`${label} (${reason}): testing ${targets.length} server(s), ${settings.workers} at a time, with ${url}`);
      const summary = await this.runOnce(label, targets, url, settings);
      if (summary.cancelled || summary.tested === 0) break;
      if (summary.successes > 0) {
        this.urlIndex = urlIndex;
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
      for (const [id, result] of summary.held) this.deps.record(id, result, label);
      this.urlIndex = 0;
      break;
    }
    this.cycle = null;
    this.lastDurationMs = clock.now() - startedAt;
    this.deps.onProgress();
    const pending = this.pending;
    this.pending = null;
    if (pending) this.request(pending);
    else this.scheduleNext();
  }

  private async runOnce(label: string, ids: ServerId[], url: string, settings: MonitorSettings): Promise<CycleSummary> {
    const { records } = this.deps;
    const run = new CycleRun(
      {
        ...this.deps.cycleDeps,
        clock: this.deps.clock,
        flights: this.deps.flights,
        record: (id, result, note) => {
          this.deps.record(id, result, note);
          this.deps.onProgress();
        },
        testedSince: (id, since) => {
          const last = records.get(id)?.last;
          return !!last && !last.fromCache && last.at >= since;
        },
        networkUp: () => this.networkUp(settings),
        log: (line) => this.deps.log(`${label}: ${line}`),
      },
      { label, ids, url, workers: settings.workers, timeoutMs: settings.urlTestTimeoutMs },
    );
    this.cycle = run;
    this.deps.onProgress();
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

  private scheduleNext(): void {
    if (!this.deps.mayTest()) return;
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
