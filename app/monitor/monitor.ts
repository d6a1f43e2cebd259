/**
 * The monitor (spec/monitor.md, spec/observatory.md): every server tested in the background
 * through the server itself, exit IP and country through IP-info services, IPv6 through each
 * server once a run (verify_ipv6) unless its subscription declares it, results persisted.
 *
 * Collaborators come through the constructor; all timing goes through the Clock so every rule is
 * tested on a fake clock with a fake prober (app/monitor/testing/). The rules themselves (order,
 * stages, statistics, batch limits, IP-info order) are pure functions in ./policy; cycles live in
 * ./scheduler and ./cycle, single-flight probes in ./flights.
 *
 * The composition root must load the server list before `start()` (results of servers not in the
 * list are dropped), call `serversChanged()` when it changes, feed `trafficSeen()` from the
 * tunnel's traffic events and `networkChanged()` from the network watcher.
 */
import type { Measurement, ProbeFailure, ProbeOutcome } from '../../shared/domain/measurement';
import type { Problem } from '../../shared/domain/problem';
import type { Server, ServerId } from '../../shared/domain/server';
import type { ServerStatus } from '../../shared/domain/status';
import type { TransferVerdict } from '../../shared/domain/transfer';
import type { ObservationExport, TestProgress } from '../../shared/ipc/contract';
import type { MonitorSettings } from '../../shared/settings';
import type { Clock } from '../clock';
import type { Logger } from '../log/logger';
import { type JsonFile, saveProblemOf } from '../storage/json-file';
import { ActivityTracker } from './activity';
import { DebouncedSaver, type MonitorCacheData, exportCache, importCache } from './cache';
import { describe } from './cycle';
import { type FlightResult, Flights } from './flights';
import type { IcmpPing } from './icmp';
import { EventTests, type TestReason } from './event-tests';
import { IpInfoLookups } from './ipinfo/lookups';
import { Ipv6Checks } from './ipv6/checks';
import { type Ipv6Resolver, systemIpv6Resolver } from './ipv6/resolver';
import { DEFAULT_THROUGHPUT_URL, type MethodResult, measureDirect, measureThroughput } from './on-request';
import { frontKey } from './policy/batch';
import { needsIpv6Check } from './policy/ipv6';
import { observatoryStatus } from './policy/observatory';
import { NETWORK_SETTLE_MS } from './policy/timing';
import type { DirectCheck, Readiness, ServerProber } from './ports';
import { type StatusListener, StatusPublisher, type SubscribeOptions } from './publisher';
import { ServerRecords } from './records';
import { ResultWriter } from './results';
import { CycleScheduler } from './scheduler';
import { TransferTests } from './transfer-tests';
import { listenerErrorsTo, Signal } from '../events';

export type { MethodResult } from './on-request';
export type { TestReason } from './event-tests';

export interface SelectionReport {
  /** The group's name as the log should show it (e.g. "Auto (subscription A)"). */
  group: string;
  decision: 'kept' | 'taken';
  serverId: ServerId;
  fastestId: ServerId | null;
  reason: string;
}

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
  /** The connectivity check; without it a cycle's failures always count. */
  directCheck?: DirectCheck;
  icmp?: IcmpPing;
  /** Where the throughput test downloads `bytes` from. */
  throughputUrl?: (bytes: number) => string;
  /** Whether a server's TLS ClientHello is sent in fragments (its transfer results say so). */
  fragmentOn?: (serverId: ServerId) => boolean;
  throughputTimeoutMs?: number;
  cacheSaveDelayMs?: number;
  /** Look up exit IP and country after successful tests (default true; off for sweep benchmarks). */
  ipInfo?: boolean;
  /** Where the IPv6 check finds the test URL host's IPv6 address (default: the system resolver). */
  resolveIpv6?: Ipv6Resolver;
}

const TAG = 'MONITORING';

export class Monitor {
  readonly problems: Problem[] = [];
  private settings: MonitorSettings;
  private readonly records = new ServerRecords();
  private readonly flights: Flights;
  private readonly scheduler: CycleScheduler;
  private readonly publisher: StatusPublisher;
  private readonly activity: ActivityTracker;
  private readonly lookups: IpInfoLookups;
  private readonly ipv6Checks: Ipv6Checks;
  private readonly saver: DebouncedSaver | null;
  private readonly writer: ResultWriter;
  private readonly events: EventTests;
  private readonly transfers: TransferTests;
  private index = new Map<ServerId, Server>();
  private indexedList: readonly Server[] | null = null;
  private running = false;
  private readonly progressChanges: Signal<TestProgress>;

  constructor(private readonly options: MonitorOptions) {
    this.progressChanges = new Signal('test progress', listenerErrorsTo(options.logger, TAG));
    this.settings = options.settings;
    const { clock, logger } = options;
    this.flights = new Flights({
      prober: options.prober,
      clock,
      frontOf: (id) => this.frontOf(id),
      networkSettled: () => this.scheduler.networkSettled(),
      onProbeEnded: () => {
        this.transfers.pump();
        this.scheduler.probeEnded();
      },
    });
    this.transfers = new TransferTests({
      prober: options.prober,
      clock,
      settings: () => this.settings,
      url: (bytes) => this.settings.transferTestUrl.replaceAll('{bytes}', String(bytes)),
      delayTestsRunning: () => this.flights.probesRunning(),
      active: () => this.isActive(),
      last: (id) => this.records.get(id)?.transfer ?? null,
      fragmentOn: (id) => options.fragmentOn?.(id) ?? false,
      onResult: (id, test) => this.writer.transfer(id, test),
      onEnded: () => this.scheduler.probeEnded(),
    });
    this.scheduler = new CycleScheduler({
      clock,
      flights: this.flights,
      records: this.records,
      settings: () => this.settings,
      directCheck: options.directCheck,
      serverIds: () => this.serverList().map((s) => s.id),
      mayTest: () => this.isActive(),
      cycleDeps: {
        frontOf: (id) => this.frontOf(id),
        readiness: (id) => this.readiness(id),
        notReadyTries: (id) => this.records.get(id)?.notReadyTries ?? 0,
        skippedNotReady: (id, reason, tries) => this.writer.notReady(id, reason, tries),
        exists: (id) => this.serverOf(id) !== undefined,
        busyWorkers: () => this.transfers.runningCount,
      },
      record: (id, result, note) => this.writer.url(id, result, note, false),
      onProgress: () => this.emitProgress(),
      log: (line) => this.log(line),
    });
    this.publisher = new StatusPublisher(clock, this.settings.debounceWindowMs, (id) => (this.serverOf(id) ? this.status(id) : null), (error) =>
      logger.warn(TAG, `a status subscriber threw: ${error instanceof Error ? error.message : String(error)}`),
    );
    this.activity = new ActivityTracker(
      clock,
      this.settings.idleTimeoutMs,
      () => {
        this.log(`no traffic for ${Math.round(this.settings.idleTimeoutMs / 1000)} s: background testing stops until the next connection`);
        this.scheduler.halt();
        this.transfers.stop();
      },
      () => {
        this.log('traffic again: background testing resumes');
        this.scheduler.request('traffic resumed');
      },
    );
    this.lookups = new IpInfoLookups({
      prober: options.prober,
      clock,
      settings: () => this.settings,
      random: options.random ?? Math.random,
      onResult: (request, lookup) => this.writer.ipInfoFound(request, lookup),
    });
    this.ipv6Checks = new Ipv6Checks({
      prober: options.prober,
      clock,
      settings: () => this.settings,
      resolve: options.resolveIpv6 ?? systemIpv6Resolver,
      onResult: (request, finding) => this.writer.ipv6Found(request, finding),
    });
    this.saver = options.cacheFile
      ? new DebouncedSaver(
          options.cacheFile,
          clock,
          () => exportCache(this.records, new Set(this.index.keys()), this.scheduler.urlIndex, clock.now()),
          (error) => logger.warn(TAG, `the result cache could not be saved: ${error instanceof Error ? error.message : String(error)}`, saveProblemOf(error)),
          options.cacheSaveDelayMs ?? 2000,
        )
      : null;
    this.writer = new ResultWriter({
      clock,
      records: this.records,
      publisher: this.publisher,
      lookups: this.lookups,
      lookupIpInfo: options.ipInfo ?? true,
      saver: this.saver,
      serverOf: (id) => this.serverOf(id),
      serverList: () => this.serverList(),
      tested: (id) => this.scheduler.tested(id),
      retestChained: (ids) => void this.events.testNow(ids, 'chain-recovered'),
      considerIpv6: (id, immediate) => this.considerIpv6(id, immediate),
      considerTransfer: (id, at) => this.transfers.considerAfterAnswer(id, at),
      log: (line) => this.log(line),
    });
    this.events = new EventTests({
      clock,
      prober: options.prober,
      flights: this.flights,
      records: this.records,
      writer: this.writer,
      publisher: this.publisher,
      lookups: this.lookups,
      settings: () => this.settings,
      url: () => this.scheduler.url(),
      serverOf: (id) => this.serverOf(id),
      serverList: () => this.serverList(),
      status: (id) => this.status(id),
      running: () => this.running,
      log: (line) => this.log(line),
    });
  }

  // ——— life cycle ———

  /** Loads the cache, tests what selections reach, then runs cycles every `interval`. */
  async start(): Promise<void> {
    if (this.running) return;
    this.saver?.reopen();
    this.refreshIndex(true);
    if (this.options.cacheFile) {
      const loaded = await this.options.cacheFile.load();
      if (loaded.problem) {
        this.problems.push(loaded.problem);
        this.options.logger.warn(TAG, `result cache: ${loaded.problem.detail}`);
      }
      const count = importCache(this.records, loaded.value, new Set(this.index.keys()));
      this.scheduler.urlIndex = Math.min(loaded.value.urlIndex, this.settings.urls.length - 1);
      if (count > 0) this.log(`loaded ${count} cached results (shown as from cache until retested)`);
    }
    this.running = true;
    this.activity.start();
    const selected = this.options.selections().filter((id) => this.serverOf(id));
    if (selected.length > 0) void this.testNow(selected, 'start');
    this.scheduler.request('start');
  }

  async stop(): Promise<void> {
    this.running = false;
    this.activity.stop();
    this.scheduler.stop();
    this.flights.abortAll();
    this.lookups.stop();
    this.ipv6Checks.stop();
    this.transfers.stop();
    this.publisher.flush();
    this.publisher.stop();
    await this.saver?.close();
  }

  setSettings(settings: MonitorSettings): void {
    this.settings = settings;
    this.publisher.setWindow(settings.debounceWindowMs);
    this.activity.setIdleTimeout(settings.idleTimeoutMs);
    this.scheduler.urlIndex = Math.min(this.scheduler.urlIndex, settings.urls.length - 1);
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
    const cut = this.scheduler.networkChanged();
    this.log(`network changed: ${cut} test(s) in flight cut (rerun once it settles); all servers retested ${NETWORK_SETTLE_MS / 1000} s after the last change`);
  }

  // ——— tests on request ———

  /**
   * Event-triggered tests (a connection through an Auto member failed, a manual selection, a
   * server finished connecting): they start at once beside the cycle's workers and publish
   * without debounce. A selection measured within 15 s is not retested; servers dialling through
   * a new selection are tested too.
   */
  testNow(ids: readonly ServerId[], reason: TestReason): Promise<ServerStatus[]> {
    return this.events.testNow(ids, reason);
  }

  /**
   * The staged on-demand test (on_demand_timeouts 1 s / 3 s / 10 s): "down for now" at stage 1
   * for a server nothing is known about in this run, late answers shown at once, failed attempts
   * retried at the next stage. A second request joins the first.
   */
  testStaged(serverId: ServerId): Promise<ServerStatus> {
    return this.events.testStaged(serverId);
  }

  /** "Test all": every server is marked and a cycle runs now (even while idle: the user asked). */
  testAll(): void {
    this.scheduler.mark(this.serverList().map((s) => s.id));
    if (this.running) this.scheduler.request('test all', true);
  }

  /**
   * Auto's probes: joins a test in flight or starts one, and records nothing (Auto decides what
   * to record through `record`, so measurements made while the network is lost are never kept).
   * Each outcome carries its time; passing it back to `record` stores it once.
   */
  async probeOnce(ids: readonly ServerId[], timeoutMs: number): Promise<Record<ServerId, ProbeOutcome & { at: number }>> {
    const entries = await Promise.all(
      ids.map(async (id) => {
        const { outcome, at } = await this.joinOrProbe(id, timeoutMs);
        return [id, { ...outcome, at }] as const;
      }),
    );
    return Object.fromEntries(entries);
  }

  /** Auto's AutoProbePort: one URL test, joined when one is in flight, never recorded, never rejects. */
  async probe(serverId: ServerId, timeoutMs: number): Promise<{ delayMs: number | null; error?: ProbeFailure; at: number }> {
    const { outcome, at } = await this.joinOrProbe(serverId, timeoutMs);
    return outcome.ok ? { delayMs: outcome.delayMs, at } : { delayMs: null, error: outcome.error.kind, at };
  }

  /** Auto commits a measurement (a URL result becomes the server's latest result). */
  record(serverId: ServerId, measurement: Measurement): void {
    this.writer.measurement(serverId, measurement, false);
  }

  /** A TCP connect or ICMP echo measurement, stored among the server's last 5 of that method. */
  async measure(serverId: ServerId, method: 'tcp' | 'icmp'): Promise<MethodResult> {
    const server = this.serverOf(serverId);
    if (!server) return { available: false, reason: 'no such server' };
    const result = await measureDirect(this.options.prober, this.options.clock, server, method, this.settings.urlTestTimeoutMs, this.options.icmp);
    if (!result.available) {
      this.log(`${method.toUpperCase()} test of ${server.name}: unavailable (${result.reason})`);
      return result;
    }
    this.log(`${method.toUpperCase()} test of ${server.name} (on request): ${describe(result.outcome)}`);
    this.writer.measurement(serverId, result.measurement, true);
    return result;
  }

  /** Downloads `bytes` through the server: the speed Auto's queue orders unscored servers by. */
  async measureThroughput(serverId: ServerId, bytes = this.settings.throughputBytes): Promise<ServerStatus> {
    const server = this.serverOf(serverId);
    if (!server) throw new Error(`no server ${serverId}`);
    const url = (this.options.throughputUrl ?? DEFAULT_THROUGHPUT_URL)(bytes);
    try {
      const speed = await measureThroughput(this.options.prober, server, url, bytes, this.options.throughputTimeoutMs ?? 60_000);
      this.records.setThroughput(serverId, speed.bytesPerSecond);
      this.log(`throughput test of ${server.name}: ${speed.bytes} bytes in ${Math.round(speed.transferMs)} ms = ${(speed.bytesPerSecond / 1e6).toFixed(2)} MB/s`);
    } catch (error) {
      this.log(`throughput test of ${server.name}: ${(error as Error).message}`);
      throw error;
    }
    this.publisher.changed(serverId, { definite: true, immediate: true });
    this.saver?.schedule();
    return this.status(serverId);
  }

  /**
   * Auto's transfer test of a server whose traffic stalled: at once, beside the workers (joined
   * if one runs), recorded as the server's latest. Its verdict, or null when it could not be made.
   */
  async transferTest(serverId: ServerId): Promise<TransferVerdict | null> {
    if (!this.serverOf(serverId) || this.settings.transferTestBytes <= 0) return null;
    return (await this.transfers.testNow(serverId))?.verdict ?? null;
  }

  /** The verdict of the server's latest transfer test (Auto's queue and checks read it). */
  transferVerdict(serverId: ServerId): TransferVerdict | null {
    return this.records.get(serverId)?.transfer?.verdict ?? null;
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
    return this.progressChanges.on(listener);
  }

  progress(): TestProgress {
    return this.scheduler.progress();
  }

  status(serverId: ServerId): ServerStatus {
    return this.records.status(serverId, this.options.clock.now() - this.settings.intervalMs * 20, this.serverOf(serverId)?.ipv6);
  }

  snapshot(): ServerStatus[] {
    return this.serverList().map((s) => this.status(s.id));
  }

  /** The long ring of URL results (ping-history chart), oldest first. */
  history(serverId: ServerId): Measurement[] {
    return this.records.history(serverId);
  }

  /** The last 5 measurements, of any method (Auto's MeasurementPort). */
  measurements(serverId: ServerId): readonly Measurement[] {
    return this.status(serverId).recent;
  }

  /** The latest result was loaded from the previous run's cache (Auto adds its penalty). */
  fromCache(serverId: ServerId): boolean {
    return this.records.get(serverId)?.last?.fromCache ?? false;
  }

  throughputBps(serverId: ServerId): number | null {
    return this.records.get(serverId)?.throughputBps ?? null;
  }

  exportObservation(): ObservationExport {
    return {
      exportedAt: this.options.clock.now(),
      servers: this.serverList().map((s) => {
        const record = this.records.get(s.id);
        return { ...this.status(s.id), ...observatoryStatus(record?.last ?? null, record?.history ?? []), name: s.name, subscriptionId: s.subscriptionId };
      }),
      batch: { ...this.scheduler.batch },
    };
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

  /** verify_ipv6: once a run, after a successful URL test, unless the subscription declares it. */
  private considerIpv6(id: ServerId, immediate: boolean): void {
    const server = this.serverOf(id);
    if (!server || !this.running || this.ipv6Checks.busy(id)) return;
    if (!needsIpv6Check(this.settings.verifyIpv6, server.ipv6, this.records.get(id)?.ipv6 ?? null)) return;
    this.ipv6Checks.request({ serverId: id, url: this.scheduler.url(), immediate });
  }

  /** Joins the flight in the air (giving up at the caller's own deadline) or starts one. */
  private async joinOrProbe(serverId: ServerId, timeoutMs: number): Promise<FlightResult> {
    const flight = this.flights.probe(serverId, this.scheduler.url(), timeoutMs);
    const joined = flight.startedAt < this.options.clock.now() || flight.timeoutMs > timeoutMs;
    return joined ? this.withDeadline(flight.promise, timeoutMs) : flight.promise;
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
    if (this.progressChanges.observed) this.progressChanges.emit(this.progress());
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
    this.records.prune(new Set(this.index.keys()));
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
