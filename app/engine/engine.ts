/**
 * The composition root: builds every service of the engine with its collaborators and binds them
 * to the IPC contract. Hosts (Electron, the headless host, the CLI) only create an engine and
 * forward the contract to it; nothing above this file knows how the services are wired.
 *
 * The flow runs one way: the tunnel and the monitor publish (traffic, results, dial failures),
 * Auto listens and commands, and every change reaches the hosts as a contract event.
 */
import { join } from 'node:path';
import type { Problem } from '../../shared/domain/problem';
import type { Server, ServerId } from '../../shared/domain/server';
import type { AppSnapshot, EventName, EventPayloads, InvokeRequest, VpnClient } from '../../shared/ipc/contract';
import type { ConnectionMode, SettingsPatch } from '../../shared/settings';
import { AutoRuntime, autoConfigFrom } from '../auto/runtime';
import { autoStateFile } from '../auto/persisted';
import { type Clock, systemClock } from '../clock';
import { coreLabel } from '../core';
import { antiDpiAbilities, antiDpiFor, fragmentWritten, writableAntiDpi } from '../core/anti-dpi';
import { Emitter, listenerErrorsTo } from '../events';
import { ImportInbox } from '../imports/inbox';
import { type Logger, fileSink } from '../log/logger';
import { Monitor } from '../monitor/monitor';
import { monitorCacheFile } from '../monitor/cache';
import { HttpDirectCheck } from '../monitor/direct-check';
import type { ServerProber } from '../monitor/ports';
import { NetworkWatcher } from '../network/watcher';
import { ChainedProber, noVantageProber, ReachabilityRuntime } from '../reachability';
import { RoutingService } from '../routing/service';
import { type SettingsBackend, SettingsFile } from '../settings/settings-file';
import { SettingsStore } from '../settings/store';
import { saveProblemOf } from '../storage/json-file';
import { appFetcher } from '../subscriptions/app-fetcher';
import { SubscriptionRefresher } from '../subscriptions/refresher';
import { SubscriptionStore, subscriptionsFile } from '../subscriptions/store';
import { type SystemProxyHost, SystemProxyMode } from '../system-proxy/mode';
import type { LaunchCommand } from '../system-wide/linux/policy/elevation';
import type { SystemWide } from '../system-wide/for-platform';
import type { TunnelController } from '../tunnel/controller';
import { CarrierProber } from '../tunnel/carrier-prober';
import type { ImportRequest } from '../../shared/domain/import-request';
import { connectionHandlers, connectionStateOf } from './connection';
import type { ContractHandlers } from './contract-handlers';
import { captureFollowedTunnel, findCore, probeOutboundMark, startCapture } from './core-pieces';
import { coreListOf } from './core-list';
import { surveyCores } from './core-survey';
import { measurementOperations, StatusView } from './measurements';
import { forwardNetworkChange } from './network-changes';
import { NetworkLossPort } from './network-loss';
import { NoCoreProber } from './no-core-prober';
import { ProblemBoard } from './problems';
import { RoutingInForce, settingsOperations } from './routing-in-force';
import { reportSelections } from './selection-lines';
import { ServerCatalog } from './server-catalog';
import { SettingsFanOut, tunnelPorts } from './settings-changes';
import { followSubscriptions } from './subscription-changes';
import { subscriptionOperations } from './subscription-operations';
import { TunnelDriver } from './tunnel-driver';
import { countedVantages, followTestBudget } from './test-budget';
import { forwardTunnelEvents } from './tunnel-events';
import { VerdictBatcher } from './verdict-batcher';
import { subscriptionForUi } from './ui-view';
import { EngineRefusal } from '../../shared/domain/refusal';

export interface EngineOptions {
  /** The app's data folder (settings, subscriptions, cache, Auto's state, logs, runtime configs). */
  dataDir: string;
  /** The folder holding `core/<platform>-<arch>/` (bundled cores). */
  resourcesDir?: string;
  logger: Logger;
  clock?: Clock;
  /** The connection mode of a first start: the desktop app's is `system-proxy`, the CLI's `proxy`. */
  defaultMode?: ConnectionMode;
  /** Where the settings live: electron-store in the Electron host, conf (the default) elsewhere. */
  settingsBackend?: SettingsBackend;
  /** Settings applied over the stored ones at start (the demo points test URLs at the lab). */
  settingsOverrides?: SettingsPatch;
  /** Where the throughput test downloads `bytes` from (the lab's /download in the demo). */
  throughputUrl?: (bytes: number) => string;
  /** Watch the OS's network for changes (default true). */
  watchNetwork?: boolean;
  /**
   * How this host starts the system-wide capture helper (root directly, else pkexec); without it
   * system-wide mode refuses to connect, saying why.
   */
  captureHelper?: (mode: 'session' | 'remove') => LaunchCommand;
  /** How this host changes the OS's proxy settings; without it `system-proxy` mode leaves them alone. */
  systemProxy?: SystemProxyHost;
  /** The demo world's control, behind the contract's `labControl` (absent outside the demo). */
  labControl?: (request: InvokeRequest<'labControl'>) => Promise<void>;
}

export type Engine = VpnClient & {
  stop(): Promise<void>;
  /** A link handed over by the OS or the command line: it waits for the user's confirmation. */
  offerLink(raw: string): ImportRequest;
  /** Auto's decisions as they are made (the CLI prints them). */
  onDecision: AutoRuntime['onDecision'];
  /** The tunnel controller itself (the failover benchmark reads its events and timings directly). */
  tunnel(): TunnelController | null;
  /** Problems met at start (an unreadable file set aside, no core found), in words. */
  startupProblems(): string[];
  /** System-wide mode's capture (the CLI says what it applied). */
  systemWide(): SystemWide;
};

const TAG = 'ENGINE';

export async function createEngine(options: EngineOptions): Promise<Engine> {
  const { dataDir, logger } = options;
  const clock = options.clock ?? systemClock;
  const board = new ProblemBoard(clock);
  logger.addSink(fileSink(join(dataDir, 'app.log')));
  const removeSaveSink = logger.addSink(board.saveFailures());
  const metAtStart = (problem: Problem | null) => {
    if (!problem) return;
    logger.warn(TAG, problem.detail);
    board.raiseAtStart(problem);
  };

  // Settings first: everything else is configured from them.
  const settingsStore = new SettingsStore(
    new SettingsFile({ dataDir, backend: options.settingsBackend, defaultMode: options.defaultMode }),
    listenerErrorsTo(logger, TAG),
  );
  await settingsStore.load();
  metAtStart(settingsStore.problem);
  if (options.settingsOverrides) await settingsStore.update(options.settingsOverrides);
  const settings = () => settingsStore.get();
  logger.setLevel(settings().logLevel);

  const core = await findCore({ corePath: settings().corePath, resourcesDir: options.resourcesDir }, logger);
  metAtStart('problem' in core ? core.problem : null);
  const profile = 'profile' in core ? core.profile : null;
  const carriers = 'carriers' in core ? core.carriers : [];
  const noCoreReason = 'problem' in core ? core.problem.detail : '';
  const runtimeDir = join(dataDir, 'runtime');
  const antiDpi = (id: ServerId) => antiDpiFor(settings().antiDpi, id);

  // The tunnel, with system-wide capture following it, on the routing of the settings.
  const capture = await startCapture(
    // The LAN is left out of the capture exactly when the routing sends it direct.
    {
      dataDir,
      runtimeDir,
      resourcesDir: options.resourcesDir,
      logger,
      launch: options.captureHelper ?? noCaptureHelper,
      corePath: profile?.path,
      bypassLan: () => settings().routing.bypassLan,
      linuxCapture: () => settings().systemWideCapture,
      remoteDns: () => settings().dns.remote,
    },
    settings().mode,
  );
  // System-proxy mode: what a crashed run left pointed at the app is put back first too.
  const systemProxy = options.systemProxy ? await SystemProxyMode.start(options.systemProxy, { dataDir, logger }) : null;
  const routingService = await RoutingService.create(options.resourcesDir, profile);
  const initialRouting = routingService.stateFor(settings());
  for (const notice of initialRouting.view.notices) logger.warn(TAG, `routing: ${notice}`);
  const built = profile
    ? captureFollowedTunnel({ core: profile, carriers, runtimeDir, logger, clock, ports: tunnelPorts(settings()), capture, routing: initialRouting.routing, antiDpi })
    : null;
  const tunnel = built?.tunnel ?? null;
  const routing = new RoutingInForce(routingService, initialRouting, tunnel, logger);

  // Subscriptions; a provider blocked on the user's network is asked again through the tunnel.
  const fetcher = await appFetcher({ dataDir, logger, tunnelProxy: () => (tunnel?.state().state === 'connected' ? tunnel.state().httpProxy : null) });
  const subscriptions = new SubscriptionStore({ file: subscriptionsFile(dataDir), fetcher, clock, logger });
  await subscriptions.load();
  metAtStart(subscriptions.problem);
  const catalog = new ServerCatalog(profile, carriers);
  catalog.rebuild(subscriptions.list());

  // The prober (a null object without a core, so the monitor can say why) and the monitor.
  const probeMark = profile ? await probeOutboundMark(profile) : undefined;
  const prober: ServerProber & { close?(): Promise<void>; setServers?(s: readonly Server[]): void } = profile
    ? new CarrierProber({ core: profile, carriers, runtimeDir, logger, clock, outboundMark: probeMark, antiDpi })
    : new NoCoreProber(noCoreReason);
  prober.setServers?.(catalog.index.all());
  const driver = new TunnelDriver(() => tunnel, catalog.index, () => noCoreReason);
  // Auto's queue picks the servers with transfer tests; Auto is built after the monitor.
  let autoQueue: () => ServerId[] = () => [];
  const monitor = new Monitor({
    prober,
    clock,
    logger,
    settings: settings().monitor,
    cacheFile: monitorCacheFile(dataDir),
    servers: () => catalog.index.all(),
    selections: () => [driver.current()].filter((id): id is ServerId => id !== null),
    queue: () => autoQueue(),
    directCheck: new HttpDirectCheck(() => capture.directProxy()),
    throughputUrl: options.throughputUrl,
    fragmentOn: (id) => fragmentWritten(settings().antiDpi, id, profile),
  });

  // Reachability verdicts: the outside view through other servers (spec/reachability.md).
  const vantages = countedVantages(
    profile
      ? new ChainedProber({ core: profile, runtimeDir, logger, url: () => settings().monitor.urls[0] as string, outboundMark: probeMark })
      : noVantageProber(noCoreReason),
    () => settings().monitor.urls[0] as string,
    monitor,
  );
  // Reachability asks whether Auto found the network lost; Auto, built after it, is plugged in below.
  const networkLoss = new NetworkLossPort(clock);
  const reachability = new ReachabilityRuntime({
    clock,
    logger,
    servers: () => catalog.index.all(),
    monitor,
    here: monitor,
    vantages,
    settings: () => ({ intervalMs: settings().monitor.intervalMs, urlTestTimeoutMs: settings().monitor.urlTestTimeoutMs, trustedCheckerId: settings().trustedCheckerId }),
    networkLost: () => networkLoss.reason(),
  });

  // Auto, with its state persisted beside the rest.
  const autoFile = autoStateFile(dataDir);
  const autoLoaded = await autoFile.load();
  metAtStart(autoLoaded.problem);
  const auto = new AutoRuntime({
    clock,
    logger,
    config: autoConfigFrom(settings()),
    probe: {
      probe: (id, timeoutMs) => monitor.probe(id, timeoutMs),
      transferTest: (id) => monitor.transferTest(id),
      eventTest: (id) => void monitor.testNow([id], 'selection'),
    },
    measurements: monitor,
    tunnel: driver,
    subscriptions: { list: () => catalog.autoView() },
    reachability,
    store: { save: (state) => autoFile.save(state).catch((error: unknown) => logger.error(TAG, String(error), saveProblemOf(error))) },
    persisted: autoLoaded.value,
  });
  networkLoss.connect(auto);
  autoQueue = () => auto.candidateQueue();

  // Events: lower layers publish; the engine's services carry them to Auto, the monitor and the hosts.
  const events = new Emitter<EventPayloads>((error, event) => logger.error(TAG, `a ${String(event)} listener failed: ${String(error)}`));
  const publish =
    <E extends EventName>(event: E) =>
    (payload: EventPayloads[E]) =>
      events.emit(event, payload);
  const statuses = new StatusView(monitor, reachability);
  const verdicts = new VerdictBatcher({
    clock,
    windowMs: () => settings().monitor.debounceWindowMs,
    exists: (id) => catalog.index.get(id) !== undefined,
    publish: (ids) => events.emit('statuses', ids.map((id) => statuses.of(id))),
  });
  const imports = new ImportInbox(clock, logger);
  const settingsFanOut = new SettingsFanOut(settings(), {
    capture,
    tunnel,
    restartTunnel: () => driver.reconnect(),
    rewriteProbes: () => prober.setServers?.(catalog.index.all()),
    tunnelAntiDpi: (next) => {
      const current = driver.current();
      return profile && current ? writableAntiDpi(antiDpiFor(next.antiDpi, current), profile) : null;
    },
    setLogLevel: (level) => logger.setLevel(level),
    monitor,
    auto,
    reachability,
    routing,
    publish: { settings: publish('settings'), routing: publish('routing') },
    warn: (line) => logger.warn(TAG, line),
  });
  const unsubscribers: (() => void)[] = [
    ...(built
      ? [
          built.unbind,
          forwardTunnelEvents(built.tunnel, {
            auto,
            monitor: { trafficSeen: (at) => monitor.trafficSeen(at), connectionActivity: () => monitor.connectionActivity(), testFailedMember: (id) => void monitor.testNow([id], 'member-failed') },
            wanted: () => driver.isWanted(),
            publish: { traffic: publish('traffic'), connection: publish('connection') },
          }),
        ]
      : []),
    capture.onChange((status) => {
      if (status.error) board.raise({ topic: { kind: 'system-wide' }, detail: status.error }, 'error');
    }),
    imports.onChange(publish('importRequests')),
    board.onChange(publish('problems')),
    removeSaveSink,
    monitor.subscribe((list) => events.emit('statuses', list.map((status) => statuses.with(status)))),
    reachability.onChange(({ serverId }) => verdicts.note(serverId)),
    monitor.onProgress(publish('testProgress')),
    followTestBudget(monitor, board),
    auto.onChange(publish('auto')),
    // The current server's transfer test freezing is one of Auto's triggers.
    monitor.onTransfer((id) => auto.transferSeen(id)),
    reportSelections({ auto, subscriptions, monitor }),
    subscriptions.onChange((list) =>
      followSubscriptions(list, {
        catalog,
        setProbedServers: (servers) => prober.setServers?.(servers),
        monitor,
        reachability,
        auto,
        publish: { subscriptions: publish('subscriptions'), unsupported: publish('unsupported'), carried: publish('carried') },
      }),
    ),
    settingsStore.onChange((next) => settingsFanOut.apply(next)),
  ];

  const network = options.watchNetwork === false ? null : new NetworkWatcher(clock);
  if (network) {
    unsubscribers.push(network.onChange((change) => forwardNetworkChange(change, { auto, monitor, log: (line) => logger.info(TAG, line) })));
    network.start();
  }

  const refresher = new SubscriptionRefresher(subscriptions, clock, logger);
  refresher.start();
  await monitor.start();
  // The monitor reads its result cache as it starts (and logs its own warning about it).
  for (const problem of monitor.problems) board.raiseAtStart(problem);
  reachability.start();
  auto.start();
  if (network?.state() === 'none') auto.networkChanged('none');

  const connectionState = () => connectionStateOf(tunnel, noCoreReason);
  await systemProxy?.follow(events, { settings: settings(), connection: connectionState() });
  const snapshot = (): AppSnapshot => ({
    subscriptions: subscriptions.list().map(subscriptionForUi),
    statuses: statuses.all(),
    unsupported: catalog.unsupported(),
    carried: catalog.carried(),
    connection: connectionState(),
    auto: auto.snapshot(),
    settings: settings(),
    core: profile ? { family: profile.family, version: profile.version, path: profile.path, antiDpi: antiDpiAbilities(profile) } : null,
    testProgress: monitor.progress(),
    demo: options.labControl !== undefined,
    problems: board.list(),
    importRequests: imports.list(),
    routing: routing.view(),
  });

  // The cores as found at start: a core chosen in Settings since then takes a restart, as the tunnel's does.
  const coresWanted = { corePath: settings().corePath, resourcesDir: options.resourcesDir };
  const handlers: ContractHandlers = {
    getSnapshot: async () => snapshot(),
    listCores: async () => coreListOf(await surveyCores(coresWanted), catalog.index.all()).list,
    ...connectionHandlers({ driver, auto, catalog, delayOf: (id) => monitor.status(id).delayMs, testConnected: (id) => void monitor.testNow([id], 'selection'), state: connectionState }),
    ...subscriptionOperations({ subscriptions, auto, index: catalog.index, imports }),
    ...measurementOperations(monitor, statuses, catalog.index, reachability),
    ...settingsOperations(settingsStore, routing),
    dismissProblem: async (r) => {
      board.dismiss(r.id);
      return null;
    },
    captureScreen: async () => {
      throw new EngineRefusal('screen-reading-unavailable', 'reading the screen is possible only in the desktop app');
    },
    labControl: async (r) => {
      if (!options.labControl) throw new EngineRefusal('lab-unavailable', 'the Lab panel exists only in the demo');
      await options.labControl(r);
      return null;
    },
  };

  let stopped = false;
  const engine: Engine = {
    ...handlers,
    on: (event, listener) => events.on(event, listener),
    onDecision: (listener) => auto.onDecision(listener),
    tunnel: () => tunnel,
    offerLink: (raw) => imports.offerLink(raw),
    startupProblems: () => board.atStart().map((problem) => problem.detail),
    systemWide: () => capture,
    async stop() {
      if (stopped) return;
      stopped = true;
      // The user's proxy settings go back before the tunnel they point at stops.
      await systemProxy?.end();
      network?.stop();
      refresher.stop();
      verdicts.stop();
      auto.stop();
      reachability.stop();
      for (const unsubscribe of unsubscribers) unsubscribe();
      await Promise.allSettled([driver.disconnect(), monitor.stop()]);
      await capture.end();
      await Promise.allSettled([prober.close?.(), vantages instanceof ChainedProber ? vantages.stop() : undefined, fetcher.close()]);
      logger.info(TAG, 'stopped');
    },
  };
  logger.info(TAG, `started: ${profile ? coreLabel(profile) : 'no core'}, ${subscriptions.list().length} subscription(s), ${catalog.index.all().length} server(s)`);
  return engine;
}

function noCaptureHelper(): never {
  throw new EngineRefusal('system-wide-unavailable', 'system-wide mode is not available in this host (it cannot start the privileged capture helper)');
}
