/**
 * The monitor (spec/monitor.md, spec/observatory.md): every server tested in the background
 * through the server itself, exit IP and country through IP-info services, results persisted.
 *
 * Collaborators come through the constructor; all timing goes through the Clock so every rule is
 * tested on a fake clock with a fake prober (app/monitor/testing/). The rules themselves (order,
 * stages, statistics, batch limits, IP-info order) are pure functions in ./policy.
 *
 * The composition root must load the server list before `start()` (results of servers not in the
 * list are dropped), call `serversChanged()` when it changes, feed `trafficSeen()` from the
 * tunnel's traffic events and `networkChanged()` from the network watcher.
 */
import type { IpInfo, Measurement, ProbeOutcome } from '../../shared/domain/measurement';
import type { Server, ServerId } from '../../shared/domain/server';
import type { ServerStatus } from '../../shared/domain/status';
import type { ObservationExport, TestProgress } from '../../shared/ipc/contract';
import type { MonitorSettings } from '../../shared/settings';
import { type Clock, type TimerHandle, sleep } from '../clock';
import type { Logger } from '../log/logger';
import type { JsonFile } from '../storage/json-file';
import { ActivityTracker } from './activity';
import { DebouncedSaver, type MonitorCacheData, exportCache, importCache } from './cache';
import { CycleRun, type CycleSummary, describe } from './cycle';
import { type FlightResult, Flights } from './flights';
import { type IcmpPing, icmpPing } from './icmp';
import type { IpInfoLookup } from './ipinfo/lookup';
import { IpInfoLookups, type LookupRequest } from './ipinfo/lookups';
import { frontKey } from './policy/batch';
import { cycleOrder } from './policy/cycle-order';
import { planStagedTest } from './policy/staged';
import { FRESH_SELECTION_MS, NETWORK_SETTLE_MS, NOT_READY_MAX_TRIES, NOT_READY_RETRY_MS } from './policy/timing';
import type { DirectCheck, Readiness, ServerProber } from './ports';
import { type StatusListener, StatusPublisher, type SubscribeOptions } from './publisher';
import { ServerRecords } from './records';
import { runStagedTest } from './staged-test';

/** Why an event-triggered test runs. */
export type TestReason = 'start' | 'member-failed' | 'selection' | 'connected' | 'user' | 'chain-recovered';

export interface SelectionReport {
  /** The group's name as the log should show it (e.g. "Auto (subscription A)"). */
  group: string;
  decision: 'kept' | 'taken';
  serverId: ServerId;
  fastestId: ServerId | null;
  reason: string;
}

export type MethodResult = { available: true; outcome: ProbeOutcome } | { available: false; reason: string };

export interface MonitorOptions {
  prober: ServerProber;
  clock: Clock;
  logger: Logger;
  settings: MonitorSettings;
  /** Where results persist; null runs without a cache. */
  cacheFile: JsonFile<MonitorCacheData> | null;
  /** The current server list, in subscription order. */
  servers: () => readonly Server[];
  /** What groups have selected: Auto's current server, the connected server. */
  selections: () => readonly ServerId[];
  /** A number in [0, 1): the first IP-info service. */
  random?: () => number;
  directCheck?: DirectCheck;
  icmp?: IcmpPing;
  /** Where the throughput test downloads `bytes` from. */
  throughputUrl?: (bytes: number) => string;
  throughputTimeoutMs?: number;
  cacheSaveDelayMs?: number;
}

const TAG = 'MONITORING';

export class Monitor {
  readonly problems: string[] = [];
  private settings: MonitorSettings;
  private readonly records = new ServerRecords();
  private readonly flights: Flights;
  private readonly publisher: StatusPublisher;
  private readonly activity: ActivityTracker;
  private readonly lookups: IpInfoLookups;
  private readonly saver: DebouncedSaver | null;
  private index = new Map<ServerId, Server>();
  private indexedList: readonly Server[] | null = null;
  private running = false;
  private cycle: CycleRun | null = null;
  private cycleCount = 0;
  private cycleTimer: TimerHandle | null = null;
  private pendingCycle: string | null = null;
  private lastCycleStartedAt = 0;
  private lastCycleDurationMs = 0;
  private marked = new Set<ServerId>();
  private urlIndex = 0;
  private settleTimer: TimerHandle | null = null;
  private settleWaiters: (() => void)[] = [];
  private staged = new Map<ServerId, Promise<ServerStatus>>();
  private batch = { confirmedFailures: 0, overturnedFailures: 0 };
  private progressListeners = new Set<(progress: TestProgress) => void>();

  constructor(private readonly options: MonitorOptions) {
    this.settings = options.settings;
    const { clock } = options;
    this.flights = new Flights({
      prober: options.prober,
      clock,
      frontOf: (id) => this.frontOf(id),
      networkSettled: () => this.networkSettled(),
      onProbeEnded: () => this.cycle?.pump(),
    });
    this.publisher = new StatusPublisher(clock, this.settings.debounceWindowMs, (id) => (this.serverOf(id) ? this.status(id) : null), (error) =>
      options.logger.warn(TAG, `a status subscriber threw: ${error instanceof Error ? error.message : String(error)}`),
    );
    this.activity = new ActivityTracker(
      clock,
      this.settings.idleTimeoutMs,
      () => this.wentIdle(),
      () => this.resumed(),
    );
    this.lookups = new IpInfoLookups({
      prober: options.prober,
      clock,
      settings: () => this.settings,
      random: options.random ?? Math.random,
      onResult: (request, lookup) => this.ipInfoFound(request, lookup),
    });
    this.saver = options.cacheFile
      ? new DebouncedSaver(
          options.cacheFile,
          clock,
          () => exportCache(this.records, new Set(this.index.keys()), this.urlIndex, clock.now()),
          (message) => options.logger.warn(TAG, `the result cache could not be saved: ${message}`),
          options.cacheSaveDelayMs ?? 2000,
        )
      : null;
  }

  // ——— life cycle ———

  /** Loads the cache, tests what selections reach, then runs cycles every `interval`. */
  async start(): Promise<void> {
    if (this.running) return;
    this.refreshIndex(true);
    if (this.options.cacheFile) {
      const loaded = await this.options.cacheFile.load();
      if (loaded.problem) {
        this.problems.push(loaded.problem);
        this.options.logger.warn(TAG, `result cache: ${loaded.problem}`);
      }
      const count = importCache(this.records, loaded.value, new Set(this.index.keys()));
      this.urlIndex = Math.min(loaded.value.urlIndex, this.settings.urls.length - 1);
      if (count > 0) this.log(`loaded ${count} cached results (shown as from cache until retested)`);
    }
    this.running = true;
    this.activity.start();
    const selected = this.options.selections().filter((id) => this.serverOf(id));
    if (selected.length > 0) void this.testNow(selected, 'start');
    this.requestCycle('start');
  }

  async stop(): Promise<void> {
    this.running = false;
    this.activity.stop();
    this.cycleTimer?.cancel();
    this.settleTimer?.cancel();
    this.cycle?.cancel();
    this.flights.abortAll();
    this.lookups.stop();
    this.publisher.flush();
    this.publisher.stop();
    for (const resolve of this.settleWaiters.splice(0)) resolve();
    await this.saver?.flush();
  }

  setSettings(settings: MonitorSettings): void {
    this.settings = settings;
    this.publisher.setWindow(settings.debounceWindowMs);
    this.activity.setIdleTimeout(settings.idleTimeoutMs);
    this.urlIndex = Math.min(this.urlIndex, settings.urls.length - 1);
  }

  /** The server list changed: results of removed servers are dropped. */
  serversChanged(): void {
    this.refreshIndex(true);
    this.saver?.schedule();
  }

  // ——— inputs from the tunnel and the network ———

  /** Traffic passed through the tunnel at `at`: testing runs (or resumes). */
  trafficSeen(at = this.options.clock.now()): void {
    this.activity.seen(at);
  }

  /** A connection was opened through the tunnel. */
  connectionActivity(): void {
    this.activity.seen();
  }

  /** Whether background testing runs now (false while idle). */
  isActive(): boolean {
    return this.running && this.activity.isActive();
  }

  /** The network changed: tests in flight are cut and rerun; all servers are retested 2 s after the last change. */
  networkChanged(): void {
    const cut = this.flights.cutAll();
    this.cycle?.cancel();
    this.pendingCycle = null;
    this.settleTimer?.cancel();
    this.settleTimer = this.options.clock.after(NETWORK_SETTLE_MS, () => this.networkSettledNow());
    this.log(`network changed: ${cut} test(s) in flight cut (rerun once it settles); all servers retested ${NETWORK_SETTLE_MS / 1000} s after the last change`);
  }

  // ——— tests on request ———

  /**
   * Event-triggered tests (a connection through an Auto member failed, a manual selection, a
   * server finished connecting): they start at once beside the cycle's workers and publish
   * without debounce. A selection measured within 15 s is not retested; servers dialling through
   * a new selection are tested too.
   */
  async testNow(ids: readonly ServerId[], reason: TestReason): Promise<ServerStatus[]> {
    const now = this.options.clock.now();
    const wanted = ids.filter((id) => this.serverOf(id));
    let targets = [...wanted];
    const extra: ServerId[] = [];
    if (reason === 'selection') {
      targets = wanted.filter((id) => {
        const last = this.records.get(id)?.last;
        const fresh = last && !last.fromCache && now - last.at < FRESH_SELECTION_MS;
        if (fresh) this.log(`${this.name(id)} selected: measured ${((now - last.at) / 1000).toFixed(1)} s ago, not retested (${FRESH_SELECTION_MS / 1000} s rule)`);
        return !fresh;
      });
      for (const server of this.serverList()) {
        if (server.via && wanted.includes(server.via) && !wanted.includes(server.id)) extra.push(server.id);
      }
    }
    await Promise.all([...targets, ...extra].map((id) => this.testOneNow(id, extra.includes(id) ? `${reason}: dials through the new selection` : reason)));
    return [...wanted, ...extra].map((id) => this.status(id));
  }

  /** The staged on-demand test (on_demand_timeouts); a second request joins the first. */
  testStaged(serverId: ServerId): Promise<ServerStatus> {
    const existing = this.staged.get(serverId);
    if (existing) return existing;
    const run = this.runStaged(serverId).finally(() => this.staged.delete(serverId));
    this.staged.set(serverId, run);
    return run;
  }

  /** "Test all": every server is marked and a cycle runs now. */
  testAll(): void {
    for (const server of this.serverList()) this.marked.add(server.id);
    this.requestCycle('test all', true);
  }

  /**
   * Auto's probes: joins a test in flight or starts one, and records nothing (Auto decides what
   * to record through `record`, so measurements made while the network is lost are never kept).
   * Each outcome carries its time; passing it back to `record` stores it once.
   */
  async probeOnce(ids: readonly ServerId[], timeoutMs: number): Promise<Record<ServerId, ProbeOutcome & { at: number }>> {
    const url = this.currentUrl();
    const entries = await Promise.all(
      ids.map(async (id) => {
        const flight = this.flights.probe(id, url, timeoutMs);
        const joined = flight.startedAt < this.options.clock.now() || flight.timeoutMs > timeoutMs;
        const result = joined ? await this.withDeadline(flight.promise, timeoutMs) : await flight.promise;
        return [id, { ...result.outcome, at: result.at }] as const;
      }),
    );
    return Object.fromEntries(entries);
  }

  /** Auto commits a measurement (URL results become the server's latest result). */
  record(serverId: ServerId, measurement: Measurement): void {
    if (!this.serverOf(serverId)) return;
    const applied = this.records.applyMeasurement(serverId, measurement);
    if (!applied.applied) return;
    if (measurement.method === 'url') this.afterUrlResult(serverId, measurement.delayMs !== null, measurement.at, applied.recovered, false);
    this.publisher.changed(serverId, { definite: true, immediate: false });
    this.saver?.schedule();
  }

  /** A TCP connect or ICMP echo measurement, stored among the server's last 5 of that method. */
  async measure(serverId: ServerId, method: 'tcp' | 'icmp'): Promise<MethodResult> {
    const server = this.serverOf(serverId);
    if (!server) return { available: false, reason: 'no such server' };
    const timeoutMs = this.settings.urlTestTimeoutMs;
    let outcome: ProbeOutcome;
    if (method === 'tcp') {
      outcome = await this.options.prober.tcpPing(server, timeoutMs);
    } else {
      const result = await (this.options.icmp ?? icmpPing)(server.address, timeoutMs);
      if ('unavailable' in result) return { available: false, reason: result.reason };
      outcome = result;
    }
    const at = this.options.clock.now();
    const measurement: Measurement = { at, method, delayMs: outcome.ok ? outcome.delayMs : null };
    if (!outcome.ok) measurement.error = outcome.error.kind;
    this.records.applyMeasurement(serverId, measurement);
    this.log(`${method.toUpperCase()} test of ${this.name(serverId)} (on request): ${describe(outcome)}`);
    this.publisher.changed(serverId, { definite: true, immediate: true });
    this.saver?.schedule();
    return { available: true, outcome };
  }

  /** Downloads `bytes` through the server: its speed, which Auto's queue orders unscored servers by. */
  async measureThroughput(serverId: ServerId, bytes = this.settings.throughputBytes): Promise<ServerStatus> {
    if (!this.serverOf(serverId)) throw new Error(`no server ${serverId}`);
    const url = (this.options.throughputUrl ?? ((n: number) => `https://speed.cloudflare.com/__down?bytes=${n}`))(bytes);
    const result = await this.options.prober.fetchThrough(serverId, { url, timeoutMs: this.options.throughputTimeoutMs ?? 60_000, maxBytes: bytes });
    if (!result.ok) {
      this.log(`throughput test of ${this.name(serverId)}: failed (${result.error.kind}: ${result.error.message})`);
      throw new Error(`the download through ${this.name(serverId)} failed: ${result.error.message}`);
    }
    if (result.status !== 200 || result.body.length === 0) throw new Error(`the download answered HTTP ${result.status} with ${result.body.length} bytes`);
    // Transfer time after the response started, so the figure is speed rather than latency.
    const transferMs = result.elapsedMs - result.headersMs >= 10 ? result.elapsedMs - result.headersMs : result.elapsedMs;
    const bps = Math.round((result.body.length * 1000) / Math.max(1, transferMs));
    this.records.setThroughput(serverId, bps);
    this.log(`throughput test of ${this.name(serverId)}: ${result.body.length} bytes in ${Math.round(transferMs)} ms = ${(bps / 1e6).toFixed(2)} MB/s`);
    this.publisher.changed(serverId, { definite: true, immediate: true });
    this.saver?.schedule();
    return this.status(serverId);
  }

  /** A lowest-delay group's decision, logged as a LOWEST line. */
  reportSelection(report: SelectionReport): void {
    const fastest = report.fastestId ? `fastest ${this.describeServer(report.fastestId)}` : 'no member answered';
    this.options.logger.log('info', 'LOWEST', `${report.group}: ${report.decision} ${this.describeServer(report.serverId)}, ${fastest}: ${report.reason}`, this.options.clock.now());
  }

  // ——— outputs ———

  subscribe(listener: StatusListener, options: SubscribeOptions = {}): () => void {
    return this.publisher.subscribe(listener, options);
  }

  onProgress(listener: (progress: TestProgress) => void): () => void {
    this.progressListeners.add(listener);
    return () => this.progressListeners.delete(listener);
  }

  progress(): TestProgress {
    return this.cycle ? { running: true, done: this.cycle.finished, total: this.cycle.total } : { running: false, done: 0, total: 0 };
  }

  status(serverId: ServerId): ServerStatus {
    return this.records.status(serverId, this.options.clock.now() - this.settings.intervalMs * 20);
  }

  snapshot(): ServerStatus[] {
    return this.serverList().map((s) => this.status(s.id));
  }

  /** The long ring of URL results (ping-history chart), oldest first. */
  history(serverId: ServerId): Measurement[] {
    return this.records.history(serverId);
  }

  exportObservation(): ObservationExport {
    return {
      exportedAt: this.options.clock.now(),
      servers: this.serverList().map((s) => ({ ...this.status(s.id), name: s.name, subscriptionId: s.subscriptionId })),
      batch: { ...this.batch },
    };
  }

  // ——— cycles ———

  private requestCycle(reason: string, evenIfIdle = false): void {
    if (!this.running) return;
    if (!this.activity.isActive() && !evenIfIdle) return;
    if (this.cycle) {
      this.pendingCycle ??= reason;
      return;
    }
    void this.runCycle(reason);
  }

  private async runCycle(reason: string): Promise<void> {
    this.cycleTimer?.cancel();
    this.cycleTimer = null;
    const { clock } = this.options;
    const n = ++this.cycleCount;
    const startedAt = clock.now();
    this.lastCycleStartedAt = startedAt;
    this.refreshIndex(false);
    const candidates = this.serverList().map((s) => {
      const record = this.records.get(s.id);
      return { id: s.id, lastDelayMs: record?.last ? record.last.delayMs : undefined, testedAt: record?.last?.at ?? null, marked: this.marked.has(s.id) };
    });
    let targets = cycleOrder(candidates, startedAt, this.settings.intervalMs, this.lastCycleDurationMs);
    let urlIndex = this.urlIndex;
    const label = `cycle ${n}`;
    while (targets.length > 0) {
      const url = this.settings.urls[urlIndex] as string;
      this.log(`${label} (${reason}): testing ${targets.length} server(s), ${this.settings.workers} at a time, with ${url}`);
      const summary = await this.runCycleOnce(label, targets, url);
      if (summary.cancelled || summary.tested === 0) break;
      if (summary.successes > 0) {
        this.urlIndex = urlIndex;
        break;
      }
      if (await this.networkIsDown()) {
        this.log(`${label}: every test failed and a direct request failed too: the network is down, ${summary.held.size} result(s) discarded`);
        break;
      }
      if (urlIndex + 1 < this.settings.urls.length) {
        urlIndex++;
        this.log(`${label}: no test succeeded with ${url}: repeating with ${this.settings.urls[urlIndex]}`);
        targets = [...summary.held.keys()];
        continue;
      }
      for (const [id, result] of summary.held) this.recordResult(id, result, label, false);
      this.urlIndex = 0;
      break;
    }
    this.cycle = null;
    this.lastCycleDurationMs = clock.now() - startedAt;
    this.emitProgress();
    const pending = this.pendingCycle;
    this.pendingCycle = null;
    if (pending) this.requestCycle(pending);
    else this.scheduleNextCycle();
  }

  private async runCycleOnce(label: string, ids: ServerId[], url: string): Promise<CycleSummary> {
    const run = new CycleRun(
      {
        clock: this.options.clock,
        flights: this.flights,
        frontOf: (id) => this.frontOf(id),
        readiness: (id) => this.readiness(id),
        notReadyTries: (id) => this.records.get(id)?.notReadyTries ?? 0,
        skippedNotReady: (id, reason, tries) => this.skippedNotReady(id, reason, tries),
        record: (id, result, note) => {
          this.recordResult(id, result, note, false);
          this.emitProgress();
        },
        exists: (id) => this.serverOf(id) !== undefined,
        testedSince: (id, since) => {
          const last = this.records.get(id)?.last;
          return !!last && !last.fromCache && last.at >= since;
        },
        log: (line) => this.log(`${label}: ${line}`),
      },
      { label, ids, url, workers: this.settings.workers, timeoutMs: this.settings.urlTestTimeoutMs },
    );
    this.cycle = run;
    this.emitProgress();
    const summary = await run.start();
    this.batch.confirmedFailures += summary.confirmedFailures;
    this.batch.overturnedFailures += summary.overturnedFailures;
    if (summary.confirmedFailures + summary.overturnedFailures > 0) {
      this.log(`${label}: ${summary.confirmedFailures} failure(s) confirmed alone, ${summary.overturnedFailures} overturned`);
    }
    return summary;
  }

  private scheduleNextCycle(): void {
    if (!this.running || !this.activity.isActive()) return;
    const { clock } = this.options;
    const due = Math.max(0, this.lastCycleStartedAt + this.settings.intervalMs - clock.now());
    this.cycleTimer?.cancel();
    this.cycleTimer = clock.after(due, () => {
      this.cycleTimer = null;
      this.requestCycle('interval');
    });
  }

  private async networkIsDown(): Promise<boolean> {
    const check = this.options.directCheck;
    if (!check) return false;
    const url = this.settings.urls[0] as string;
    return !(await check.reachable(url, this.settings.urlTestTimeoutMs));
  }

  private wentIdle(): void {
    this.log(`no traffic for ${Math.round(this.settings.idleTimeoutMs / 1000)} s: background testing stops until the next connection`);
    this.cycleTimer?.cancel();
    this.cycleTimer = null;
    this.pendingCycle = null;
    this.cycle?.cancel();
  }

  private resumed(): void {
    this.log('traffic again: background testing resumes');
    this.requestCycle('traffic resumed');
  }

  private networkSettledNow(): void {
    this.settleTimer = null;
    for (const resolve of this.settleWaiters.splice(0)) resolve();
    for (const server of this.serverList()) this.marked.add(server.id);
    this.requestCycle('network change');
  }

  private networkSettled(): Promise<void> {
    if (!this.settleTimer) return Promise.resolve();
    return new Promise((resolve) => this.settleWaiters.push(resolve));
  }

  // ——— single tests ———

  private async testOneNow(id: ServerId, reason: string, depth = 0): Promise<void> {
    const server = this.serverOf(id);
    if (!server) return;
    for (let tries = 0; tries < NOT_READY_MAX_TRIES; tries++) {
      const readiness = this.options.prober.readiness(id);
      if (readiness.ready) break;
      this.skippedNotReady(id, readiness.reason, tries + 1);
      await sleep(this.options.clock, NOT_READY_RETRY_MS);
      if (!this.running) return;
    }
    // Only a chained server waits before its probe: anything else starts in this very tick.
    if (server.via) await this.prepareChain(server, reason, depth);
    const result = await this.flights.probe(id, this.currentUrl(), this.settings.urlTestTimeoutMs).promise;
    if (!this.recordResult(id, result, `event: ${reason}`, true) && this.records.get(id)?.lastFlight === result.flight) {
      // A cycle test it joined wrote the result first: an event's result still goes out at once.
      this.publisher.changed(id, { definite: true, immediate: true });
      this.lookups.hurry(id);
    }
  }

  /** A chained server is tested after the server it dials through has a result in this run. */
  private async prepareChain(server: Server, reason: string, depth: number): Promise<void> {
    if (!server.via || depth >= 4 || !this.serverOf(server.via)) return;
    const inFlight = this.flights.current(server.via);
    if (inFlight) await inFlight.promise;
    else if (!this.records.get(server.via)?.resultThisRun) await this.testOneNow(server.via, `${reason}: ${server.name} dials through it`, depth + 1);
  }

  private async runStaged(serverId: ServerId): Promise<ServerStatus> {
    const server = this.serverOf(serverId);
    if (!server) throw new Error(`no server ${serverId}`);
    const record = this.records.ensure(serverId);
    const readiness = this.options.prober.readiness(serverId);
    if (!readiness.ready) {
      record.notReady = readiness.reason;
      this.log(`staged test of ${server.name}: not ready (${readiness.reason}), not tested`);
      this.publisher.changed(serverId, { definite: false, immediate: true });
      return this.status(serverId);
    }
    await this.prepareChain(server, 'staged test', 0);
    const plan = planStagedTest(this.settings.onDemandTimeoutsMs, record.workedThisRun);
    const prefix = `staged test of ${server.name}`;
    this.log(`${prefix}: stages ${plan.stagesMs.map((ms) => `${ms / 1000} s`).join(', ')}${record.workedThisRun ? ' (worked in this run: starts at stage 2, never shown down)' : ''}`);
    record.testing = true;
    this.publisher.changed(serverId, { definite: false, immediate: true });
    const result = await runStagedTest(serverId, {
      clock: this.options.clock,
      flights: this.flights,
      url: this.currentUrl(),
      plan,
      onDownForNow: () => {
        record.downForNow = true;
        this.publisher.changed(serverId, { definite: false, immediate: true });
      },
      log: (line) => this.log(`${prefix}: ${line}`),
    });
    const current = this.records.ensure(serverId);
    current.testing = false;
    current.downForNow = false;
    const written = this.recordResult(serverId, { flight: result.flight, outcome: result.outcome, at: result.at }, `staged test, ${result.attempts} attempt(s)`, true);
    // Already written by a test it joined: still tell subscribers the staged test is over.
    if (!written) this.publisher.changed(serverId, { definite: true, immediate: true });
    return this.status(serverId);
  }

  // ——— results ———

  /** Writes a URL result and publishes it; false when it was older than one already written. */
  private recordResult(id: ServerId, result: Omit<FlightResult, 'flight'> & { flight?: number }, note: string, immediate: boolean): boolean {
    if (!this.serverOf(id)) return false;
    const applied = this.records.applyUrlOutcome(id, result.outcome, result.at, result.flight);
    if (!applied.applied) return false;
    this.marked.delete(id);
    this.log(`test ${this.name(id)} (${note}): ${describe(result.outcome)}`);
    this.afterUrlResult(id, result.outcome.ok, result.at, applied.recovered, immediate);
    this.publisher.changed(id, { definite: true, immediate });
    this.saver?.schedule();
    return true;
  }

  private afterUrlResult(id: ServerId, ok: boolean, at: number, recovered: boolean, immediate: boolean): void {
    if (!ok) return;
    const info = this.records.get(id)?.ipInfo;
    if (!info || info.fromCache) this.lookups.request({ serverId: id, measuredAt: at, immediate });
    if (recovered) {
      const chained = this.serverList().filter((s) => s.via === id).map((s) => s.id);
      if (chained.length > 0) {
        this.log(`${this.name(id)} works again after failing: retesting ${chained.length} server(s) chained through it`);
        void this.testNow(chained, 'chain-recovered');
      }
    }
  }

  private ipInfoFound(request: LookupRequest, lookup: IpInfoLookup): void {
    const id = request.serverId;
    if (!this.serverOf(id)) return;
    const tried = lookup.attempts.map((a) => `${a.source}: ${a.result}`).join('; ');
    if (!lookup.info) {
      this.log(`IP info of ${this.name(id)}: every service failed (${tried})`);
      return;
    }
    const at = this.options.clock.now();
    this.records.setIpInfo(id, lookup.info, at);
    const lowered = lookup.answerMs !== null && this.records.lowerDelay(id, request.measuredAt, Math.round(lookup.answerMs));
    this.log(`IP info of ${this.name(id)}: ${describeIp(lookup.info)}${lowered ? `; the lookup was faster than the URL test, delay now ${Math.round(lookup.answerMs as number)} ms` : ''}`);
    this.publisher.changed(id, { definite: true, immediate: request.immediate });
    this.saver?.schedule();
  }

  private skippedNotReady(id: ServerId, reason: string, tries: number): void {
    const record = this.records.ensure(id);
    record.notReady = reason;
    record.notReadyTries = tries;
    this.log(`${this.name(id)} not ready (${reason}): retry ${tries}/${NOT_READY_MAX_TRIES} in ${NOT_READY_RETRY_MS / 1000} s`);
    this.publisher.changed(id, { definite: false, immediate: false });
  }

  /** Ready to be probed: the prober can reach it, and a chain's first hop has a settled result. */
  private readiness(id: ServerId): Readiness {
    const own = this.options.prober.readiness(id);
    if (!own.ready) return own;
    const via = this.serverOf(id)?.via;
    if (via && this.serverOf(via)) {
      if (this.flights.current(via)) return { ready: false, reason: `dials through ${this.name(via)}, which is being retested` };
      if (!this.records.get(via)?.resultThisRun) return { ready: false, reason: `dials through ${this.name(via)}, which has no result in this run yet` };
    }
    return own;
  }

  // ——— helpers ———

  private currentUrl(): string {
    return this.settings.urls[Math.min(this.urlIndex, this.settings.urls.length - 1)] as string;
  }

  private withDeadline(promise: Promise<FlightResult>, ms: number): Promise<FlightResult> {
    const { clock } = this.options;
    return new Promise((resolve) => {
      const timer = clock.after(ms, () =>
        resolve({ flight: 0, at: clock.now(), outcome: { ok: false, error: { kind: 'timeout', message: `no answer within ${ms} ms` } } }),
      );
      void promise.then((result) => {
        timer.cancel();
        resolve(result);
      });
    });
  }

  private emitProgress(): void {
    if (this.progressListeners.size === 0) return;
    const progress = this.progress();
    for (const listener of this.progressListeners) listener(progress);
  }

  private serverList(): readonly Server[] {
    this.refreshIndex(false);
    return this.indexedList ?? [];
  }

  private serverOf(id: ServerId): Server | undefined {
    return this.index.get(id) ?? (this.refreshIndex(false) ? this.index.get(id) : undefined);
  }

  /** Re-reads the server list when it changed (or when forced); drops results of removed servers. */
  private refreshIndex(force: boolean): boolean {
    const list = this.options.servers();
    if (!force && list === this.indexedList) return false;
    this.indexedList = list;
    this.index = new Map(list.map((s) => [s.id, s]));
    const dropped = this.records.prune(new Set(this.index.keys()));
    for (const id of dropped) this.marked.delete(id);
    return true;
  }

  private frontOf(id: ServerId): string {
    const server = this.serverOf(id);
    return server ? frontKey(server.address) : `id:${id}`;
  }

  private name(id: ServerId): string {
    return this.serverOf(id)?.name ?? id;
  }

  private describeServer(id: ServerId): string {
    const delay = this.records.get(id)?.last?.delayMs;
    return `${this.name(id)} (${delay === null || delay === undefined ? 'no answer' : `${delay} ms`})`;
  }

  private log(message: string): void {
    this.options.logger.log('info', TAG, message, this.options.clock.now());
  }
}

function describeIp(info: IpInfo): string {
  const place = [info.city, info.region, info.country ?? info.countryCode].filter(Boolean).join(', ');
  return `${info.ip}${place ? ` in ${place}` : ''}${info.asn ? `, ${info.asn}` : ''}${info.org ? ` ${info.org}` : ''} (from ${info.source})`;
}
