/**
 * The monitor (spec/monitor.md, spec/observatory.md): every server tested in the background
 * through the server itself, exit IP and country through IP-info services, IPv6 through each
 * server once a run (verify_ipv6) unless its subscription declares it, results persisted.
 *
 * This class is the one face the composition root sees. Its parts are built in ./compose, in
 * dependency order, one per port it serves:
 * - life cycle (./lifecycle): start, stop, settings and server-list changes;
 * - use of the connection (./activity): traffic seen, idle, whether testing runs;
 * - background cycles (./scheduler): test all, network changes, progress;
 * - event and staged tests (./event-tests);
 * - Auto's and reachability's probes, never recorded (./probes), and Auto's store of
 *   measurements (./measurements);
 * - what the UI reads (./status-view, ./publisher, ./observation), the tests on request (TCP and
 *   ICMP: ./direct-tests; throughput: ./throughput), the LOWEST lines (./selection-log).
 * The rules themselves (order, stages, statistics, batch limits, IP-info order) are pure functions
 * in ./policy. All timing goes through the Clock, so every rule is tested on a fake clock with a
 * fake prober (app/monitor/testing/).
 *
 * The composition root must load the server list before `start()` (results of servers not in the
 * list are dropped), call `serversChanged()` when it changes, feed `trafficSeen()` from the
 * tunnel's traffic events and `networkChanged()` from the network watcher.
 */
import type { DirectMethod, DirectTestOutcome, Measurement } from '../../shared/domain/measurement';
import type { Problem } from '../../shared/domain/problem';
import type { Server, ServerId } from '../../shared/domain/server';
import type { SpeedTestProgress, SpeedTestResult } from '../../shared/domain/speed-test';
import type { LatestStatus, ServerStatus } from '../../shared/domain/status';
import type { ByteCount, BytesByKind, TestKind, TestTrafficUsage } from '../../shared/domain/test-traffic';
import type { TransferTest, TransferVerdict } from '../../shared/domain/transfer';
import type { ObservationExport, TestProgress } from '../../shared/ipc/contract';
import type { MonitorSettings } from '../../shared/settings';
import { composeMonitor, type MonitorOptions, type MonitorParts } from './compose';
import { chainedExchangeBytes } from './policy/traffic-cost';
import type { TestReason } from './event-tests';
import type { ProbeAnswer } from './probes';
import type { StatusListener, SubscribeOptions } from './publisher';
import type { SelectionReport } from './selection-log';
import type { SpeedTestRequest } from './speed-tests';

export type { MonitorOptions } from './compose';
export type { TestReason } from './event-tests';
export type { SelectionReport } from './selection-log';
export { SpeedTestRefused, type SpeedTestRequest } from './speed-tests';

export class Monitor {
  private readonly parts: MonitorParts;

  /** `parts`: built from `options` (a test world builds them with fewer parts: ./testing/test-monitor.ts). */
  constructor(options: MonitorOptions, parts: MonitorParts = composeMonitor(options)) {
    this.parts = parts;
  }

  // ——— life cycle ———

  /** What went wrong at start that the user should hear of (an unreadable cache). */
  get problems(): Problem[] {
    return this.parts.lifecycle.problems;
  }

  /** Loads the cache, tests what selections reach, then runs cycles every `interval`. */
  start(): Promise<void> {
    return this.parts.lifecycle.start();
  }

  async stop(): Promise<void> {
    // A speed test under way stops with the monitor: its downloads are the monitor's.
    await this.parts.speedTests.cancel();
    return this.parts.lifecycle.stop();
  }

  setSettings(settings: MonitorSettings): void {
    this.parts.lifecycle.setSettings(settings);
    // A cap set, raised or removed takes effect now.
    this.parts.traffic.checkCap();
  }

  /** The server list changed: results of removed servers are dropped. */
  serversChanged(): void {
    this.parts.lifecycle.serversChanged();
  }

  // ——— inputs from the tunnel and the network ———

  /** Traffic passed through the tunnel at `at`: testing runs (or resumes). */
  trafficSeen(at?: number): void {
    this.parts.activity.seen(at);
  }

  /** A connection was opened through the tunnel. */
  connectionActivity(): void {
    this.parts.activity.seen();
  }

  /** The tunnel came up on a server (a connect, a switch): it is the current server in focus now. */
  selectionChanged(): void {
    this.parts.focus.selectionChanged();
  }

  /** Whether background testing runs now (false while idle). */
  isActive(): boolean {
    return this.parts.activity.isActive();
  }

  /** The network changed: tests in flight are cut and rerun; all servers are retested 2 s after the last change. */
  networkChanged(): void {
    this.parts.scheduler.networkChanged();
  }

  // ——— tests on request ———

  /**
   * Event-triggered tests (a connection through an Auto member failed, a manual selection, a
   * server finished connecting): they start at once beside the cycle's workers and publish
   * without debounce. A selection measured within 15 s is not retested; servers dialling through
   * a new selection are tested too.
   */
  testNow(ids: readonly ServerId[], reason: TestReason): Promise<ServerStatus[]> {
    return this.parts.events.testNow(ids, reason);
  }

  /**
   * The staged on-demand test (on_demand_timeouts 1 s / 3 s / 10 s): "down for now" at stage 1
   * for a server nothing is known about in this run, late answers shown at once, failed attempts
   * retried at the next stage. A second request joins the first.
   */
  testStaged(serverId: ServerId): Promise<ServerStatus> {
    return this.parts.events.testStaged(serverId);
  }

  /** "Test all": every server is marked and a cycle runs now (even while idle: the user asked). */
  testAll(): void {
    this.parts.scheduler.testAll();
  }

  /** Auto's and reachability's probe: one URL test, joined when one is in flight, never recorded, never rejects. */
  probe(serverId: ServerId, timeoutMs: number): Promise<ProbeAnswer> {
    return this.parts.probes.probe(serverId, timeoutMs);
  }

  /**
   * Auto's transfer test of a server whose traffic stalled: at once, beside the workers (joined
   * if one runs), recorded as the server's latest. Its verdict, or null when it could not be made.
   */
  transferTest(serverId: ServerId): Promise<TransferVerdict | null> {
    return this.parts.probes.transferTest(serverId);
  }

  /** Downloads `bytes` through the server: the speed Auto's queue orders unscored servers by. */
  /** A TCP connect or ICMP echo to the server's own address, on request; recorded as its latest measurement. */
  measureDirect(serverId: ServerId, method: DirectMethod): Promise<DirectTestOutcome> {
    return this.parts.direct.measure(serverId, method);
  }

  measureThroughput(serverId: ServerId, bytes = this.parts.settings.get().throughputBytes): Promise<ServerStatus> {
    return this.parts.throughput.measure(serverId, bytes);
  }

  // ——— the bulk speed test (only on request) ———

  /** Starts a speed test of these servers; throws SpeedTestRefused when one runs or none is given. */
  startSpeedTest(request: SpeedTestRequest): SpeedTestProgress {
    return this.parts.speedTests.start(request);
  }

  /** Stops every download of the speed test at once; resolves when the last has stopped. */
  cancelSpeedTest(): Promise<SpeedTestProgress> {
    return this.parts.speedTests.cancel();
  }

  /** Resolves when no speed test runs. */
  speedTestIdle(): Promise<void> {
    return this.parts.speedTests.idle();
  }

  speedTestProgress(): SpeedTestProgress {
    return this.parts.speedTests.progress();
  }

  /** How long the last cancel took until every download had stopped (ms). */
  lastSpeedTestCancelMs(): number | null {
    return this.parts.speedTests.lastCancelMs;
  }

  onSpeedTestProgress(listener: (progress: SpeedTestProgress) => void): () => void {
    return this.parts.speedTests.progressChanged.on(listener);
  }

  /** A server's speed-test result was written (measured or failed). */
  onSpeedTestResult(listener: (measured: { serverId: ServerId; result: SpeedTestResult }) => void): () => void {
    return this.parts.speedTests.measured.on(listener);
  }

  // ——— Auto's store of measurements ———

  /** Auto commits a measurement (a URL result becomes the server's latest result). */
  record(serverId: ServerId, measurement: Measurement): void {
    this.parts.measurements.record(serverId, measurement);
  }

  /** The last 5 measurements, of any method. */
  measurements(serverId: ServerId): readonly Measurement[] {
    return this.parts.measurements.measurements(serverId);
  }

  /** The latest result was loaded from the previous run's cache (Auto adds its penalty). */
  fromCache(serverId: ServerId): boolean {
    return this.parts.measurements.fromCache(serverId);
  }

  throughputBps(serverId: ServerId): number | null {
    return this.parts.measurements.throughputBps(serverId);
  }

  /** The verdict of the server's latest transfer test (Auto's queue and checks read it). */
  transferVerdict(serverId: ServerId): TransferVerdict | null {
    return this.parts.measurements.transferVerdict(serverId);
  }

  /** The server's latest transfer test with its time and bytes (Auto: is it fresh, how much came before a freeze). */
  transferResult(serverId: ServerId): TransferTest | null {
    return this.parts.measurements.transferResult(serverId);
  }

  /** A lowest-delay group's decision, logged as a LOWEST line. */
  reportSelection(report: SelectionReport): void {
    this.parts.selectionLog.report(report);
  }

  // ——— what testing costs ———

  /** The user opened a server (its details): it gets transfer tests for two intervals, one now when due. */
  serverOpened(serverId: ServerId): void {
    const { focus, records, transfers } = this.parts;
    focus.open(serverId);
    const last = records.get(serverId)?.last;
    if (last && last.delayMs !== null && !last.fromCache) transfers.considerAfterAnswer(serverId, last.at);
  }

  /** Bytes of a test made outside the monitor's own probers (reachability's probes through other servers). */
  countTraffic(serverId: ServerId, kind: TestKind, bytes: ByteCount): void {
    this.parts.traffic.add(serverId, kind, bytes);
  }

  /** A reachability test of `target` through `vantage` (policy/traffic-cost.ts's estimate), on the vantage's account. */
  countChainedTest(vantage: Server, target: Server, url: string, answered: boolean): void {
    this.parts.traffic.add(vantage.id, 'reachability', chainedExchangeBytes(vantage, target, url, answered));
  }

  /** What testing used in the last hour and the last day, by kind, and the daily cap. */
  testTraffic(): TestTrafficUsage {
    return this.parts.traffic.usage();
  }

  /** Every byte testing used since start, by kind. */
  testTrafficTotal(): BytesByKind {
    return this.parts.traffic.total();
  }

  /** One server's share since start, by kind. */
  testTrafficOf(serverId: ServerId): BytesByKind {
    return this.parts.traffic.server(serverId);
  }

  /** The daily test budget was spent (true) or testing is under it again (false). */
  onTestBudget(listener: (capped: boolean) => void): () => void {
    return this.parts.traffic.capChanged.on(listener);
  }

  // ——— outputs ———

  subscribe(listener: StatusListener, options: SubscribeOptions = {}): () => void {
    return this.parts.publisher.subscribe(listener, options);
  }

  /**
   * A part of the server's status that the monitor does not hold changed (its reachability
   * verdict): the status subscribers hear of the server again with the next burst, so the window
   * gets one debounced stream of statuses. Group subscribers are not told: Auto reads verdicts itself.
   */
  restate(serverId: ServerId): void {
    this.parts.publisher.changed(serverId, { definite: false, immediate: false });
  }

  /** A server's transfer test ended and its result is the server's latest. */
  onTransfer(listener: (serverId: ServerId) => void): () => void {
    return this.parts.transferWritten.on(listener);
  }

  onProgress(listener: (progress: TestProgress) => void): () => void {
    return this.parts.scheduler.progressChanged.on(listener);
  }

  progress(): TestProgress {
    return this.parts.scheduler.progress();
  }

  status(serverId: ServerId): ServerStatus {
    return this.parts.view.status(serverId);
  }

  snapshot(): ServerStatus[] {
    return this.parts.view.snapshot();
  }

  /** A server's last measurements and IP info (reachability's port), without its statistics. */
  observed(serverId: ServerId): Pick<ServerStatus, 'recent' | 'ipInfo'> {
    return this.parts.view.observed(serverId);
  }

  /** Every server's latest status without statistics: the window's first snapshot of the list. */
  latest(): LatestStatus[] {
    return this.parts.view.latest();
  }

  /** The long ring of URL results (ping-history chart), oldest first. */
  history(serverId: ServerId): Measurement[] {
    return this.parts.view.history(serverId);
  }

  exportObservation(): ObservationExport {
    return this.parts.observation.export();
  }
}
