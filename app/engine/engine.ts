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
import type { ConnectionMode, Settings, SettingsPatch } from '../../shared/settings';
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
import type { HelperMode, LaunchCommand } from '../system-wide/linux/policy/elevation';
import type { SystemWide } from '../system-wide/for-platform';
import type { TunnelController } from '../tunnel/controller';
import { CarrierProber } from '../tunnel/carrier-prober';
import type { ImportRequest } from '../../shared/domain/import-request';
import { connectionHandlers, connectionStateOf } from './connection';
import type { ContractHandlers } from './contract-handlers';
import { captureFollowedTunnel, findCore, probeOutboundMark, startCapture } from './core-pieces';
import { coreListOf } from './core-list';
import { chainChange } from './chain-changes';
import { surveyCores } from './core-survey';
import { measurementOperations } from './test-operations';
import { WindowStatuses } from './window-statuses';
import { forwardNetworkChange } from './network-changes';
import { NetworkLossPort } from './network-loss';
import { NoCoreProber } from './no-core-prober';
import { ProblemBoard } from './problems';
import { RoutingInForce, settingsOperations } from './routing-in-force';
import { ruleSetPieces } from './rule-sets';
import { reportSelections } from './selection-lines';
import { ServerCatalog } from './server-catalog';
import { SettingsFanOut, tunnelPorts } from './settings-changes';
import { SharingCredentialsFile } from '../sharing/credentials';
import { HouseholdSharing } from '../sharing/sharing';
import { listApps } from '../system-wide/per-app/app-list';
import { followSubscriptions } from './subscription-changes';
import { subscriptionOperations } from './subscription-operations';
import { TunnelDriver } from './tunnel-driver';
import { countedVantages, followTestBudget } from './test-budget';
import { forwardTunnelEvents } from './tunnel-events';
import { OwnFetchDestinations } from './own-fetches';
import { Lifecycle } from './lifecycle';
import { statusForList, subscriptionForUi } from './ui-view';
import { EngineRefusal } from '../../shared/domain/refusal';
import { KillSwitch } from '../system-wide/kill-switch/kill-switch';
import { KillSwitchFollower } from '../system-wide/kill-switch/follow-settings';

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
  captureHelper?: (mode: HelperMode) => LaunchCommand;
  /** Where the kill switch keeps its record (default: dataDir); the CLI's `kill-switch off` looks there. */
  killSwitchDataDir?: string;
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
  /** Problems met at start (an unreadable file set aside, no core found), in words. */
  startupProblems(): string[];
  /** System-wide mode's capture (the CLI says what it applied). */
  systemWide(): SystemWide;
  /** The kill switch, where this host runs it (the CLI says what is in force). */
  killSwitch(): KillSwitchFollower | null;
};

const TAG = 'ENGINE';

export async function createEngine(options: EngineOptions): Promise<Engine> {
  return (await assembleEngine(options)).engine;
}

/** What tests and benchmarks may look at beside the engine (testing/engine-parts.ts); hosts never do. */
export interface EngineParts {
  engine: Engine;
  /** The tunnel controller itself, for its dial-failure events and timings; null without a core. */
  tunnel: TunnelController | null;
  /** A server whole, transport and security included (the window holds only its list form). */
  server(id: ServerId): Server | undefined;
}

/** Builds the engine and keeps hold of its parts; only createEngine and testing/ call it. */
export async function assembleEngine(options: EngineOptions): Promise<EngineParts> {
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
      perApp: () => settings().perApp,
      linuxCapture: () => settings().systemWideCapture,
      remoteDns: () => settings().dns.remote,
    },
    settings().mode,
  );
  // System-proxy mode: what a crashed run left pointed at the app is put back first too.
  const systemProxy = options.systemProxy ? await SystemProxyMode.start(options.systemProxy, { dataDir, logger }) : null;
  // Rule sets (copies under the data folder); fetched through the tunnel once there is one.
  let tunnelProxy: () => string | null = () => null;
  const ruleSets = await ruleSetPieces({ dataDir, logger, clock, router: profile, carriers, tunnelProxy: () => tunnelProxy(), sets: () => settings().routing.ruleSets });
  const routingService = await RoutingService.create(options.resourcesDir, profile, ruleSets.store);
  const initialRouting = routingService.stateFor(settings());
  // Household sharing: the credentials are made on first use (sharing turned on, or "Show").
  const sharingCredentials = new SharingCredentialsFile(dataDir);
  for (const notice of initialRouting.view.notices) logger.warn(TAG, `routing: ${notice}`);
  const built = profile
    ? captureFollowedTunnel({ core: profile, carriers, runtimeDir, logger, clock, ports: tunnelPorts(settings(), () => sharingCredentials.get()), capture, routing: initialRouting.routing, antiDpi })
    : null;
  const tunnel = built?.tunnel ?? null;
  const routing = new RoutingInForce(routingService, initialRouting, tunnel, logger);
  const sharing = new HouseholdSharing({ settings, connected: () => tunnel?.state().state === 'connected', credentials: () => sharingCredentials.get() });
  tunnelProxy = () => (tunnel?.state().state === 'connected' ? tunnel.state().httpProxy : null);

  // Subscriptions; a provider blocked on the user's network is asked again through the tunnel.
  const ownFetches = new OwnFetchDestinations(clock);
  const fetcher = await appFetcher({
    dataDir,
    logger,
    tunnelProxy: () => (tunnel?.state().state === 'connected' ? tunnel.state().httpProxy : null),
    onTunnelAttempt: (destination) => ownFetches.begin(destination),
  });
  const subscriptions = new SubscriptionStore({ file: subscriptionsFile(dataDir), fetcher, clock, logger });
  await subscriptions.load();
  metAtStart(subscriptions.problem);
  const catalog = new ServerCatalog(profile, carriers, () => settings().chains);
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
  // The vantage cores are the chained prober's: kept apart from the counting wrapper so stop reaches them.
  const vantageCores = profile ? new ChainedProber({ core: profile, runtimeDir, logger, url: () => settings().monitor.urls[0] as string, outboundMark: probeMark }) : null;
  const vantages = countedVantages(vantageCores ?? noVantageProber(noCoreReason), () => settings().monitor.urls[0] as string, monitor);
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
  const statuses = new WindowStatuses(monitor, reachability);
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
    sharingCredentials: () => sharingCredentials.get(),
    setLogLevel: (level) => logger.setLevel(level),
    monitor,
    auto,
    reachability,
    routing,
    publish: { settings: publish('settings'), routing: publish('routing') },
    warn: (line) => logger.warn(TAG, line),
  });
  const subscriptionTargets = {
    catalog,
    setProbedServers: (servers: readonly Server[]) => prober.setServers?.(servers),
    monitor,
    reachability,
    auto,
    publish: { subscriptions: publish('subscriptions'), unsupported: publish('unsupported'), carried: publish('carried') },
  };
  let chainsInForce = settings().chains;
  const unsubscribers: (() => void)[] = [
    ...(built
      ? [
          built.unbind,
          built.tunnel.on('loginRefused', (event) => sharing.loginRefused(event.at)),
          forwardTunnelEvents(built.tunnel, {
            auto,
            monitor: { trafficSeen: (at) => monitor.trafficSeen(at), connectionActivity: () => monitor.connectionActivity(), testFailedMember: (id) => void monitor.testNow([id], 'member-failed') },
            ownFetch: (destination) => ownFetches.has(destination),
            log: (line) => logger.info('TUNNEL', line),
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
    monitor.subscribe((list) => events.emit('statuses', list.map((status) => statusForList(statuses.with(status))))),
    // A verdict reaches the window with the monitor's next burst of statuses, not a burst of its own.
    reachability.onChange(({ serverId }) => monitor.restate(serverId)),
    monitor.onProgress(publish('testProgress')),
    followTestBudget(monitor, board),
    auto.onChange(publish('auto')),
    // The current server's transfer test freezing is one of Auto's triggers.
    monitor.onTransfer((id) => auto.transferSeen(id)),
    reportSelections({ auto, subscriptions, monitor }),
    subscriptions.onChange((list) => followSubscriptions(list, subscriptionTargets)),
    settingsStore.onChange((next) => settingsFanOut.apply(next)),
    // A chain chosen in a server's details: the servers run by it again, measured again by their new path.
    settingsStore.onChange((next) => {
      const change = chainChange(chainsInForce, next.chains, driver.current());
      chainsInForce = next.chains;
      if (change.changed.length === 0) return;
      followSubscriptions(subscriptions.list(), subscriptionTargets);
      void monitor.testNow(change.changed.filter((id) => catalog.index.get(id)), 'selection');
      if (change.reconnect) void driver.reconnect().catch((error: unknown) => logger.warn(TAG, `reconnect on the new chain failed: ${String(error)}`));
    }),
    // A set just chosen is fetched at once; an updated copy is put in force (a core restart on the same server).
    settingsStore.onChange(() => void ruleSets.refresher.refreshDue()),
    ruleSets.store.changed.on(() => {
      const view = routing.follow(settings());
      if (view) publish('routing')(view);
    }),
  ];

  // The kill switch (Linux, through the capture helper): as the settings say, following the servers.
  const killSwitch = await startKillSwitch({ dataDir: options.killSwitchDataDir ?? dataDir, logger, board, settings, servers: () => catalog.index.all(), launch: options.captureHelper });
  if (killSwitch) {
    unsubscribers.push(
      settingsStore.onChange(() => void killSwitch.follow()),
      subscriptions.onChange(() => void killSwitch.follow()),
    );
  }

  const network = options.watchNetwork === false ? null : new NetworkWatcher(clock);
  if (network) unsubscribers.push(network.onChange((change) => forwardNetworkChange(change, { auto, monitor, log: (line) => logger.info(TAG, line) })));

  const refresher = new SubscriptionRefresher(subscriptions, clock, logger);
  const connectionState = () => connectionStateOf(tunnel, noCoreReason);
  // Started in this order stage by stage, closed in reverse (lifecycle.ts): the system proxy goes
  // back before the tunnel it points at stops, and the probers close last.
  const lifecycle = new Lifecycle([
    { name: 'probers', close: async () => void (await Promise.allSettled([prober.close?.(), vantageCores?.stop(), fetcher.close(), ruleSets.close()])) },
    // Its rules stay in force by design; closing only stops following the servers.
    { name: 'kill switch', close: () => killSwitch?.stop() },
    { name: 'system-wide capture', close: () => capture.end() },
    { name: 'tunnel', close: () => driver.disconnect() },
    {
      name: 'monitor',
      start: async (stage) => {
        if (stage !== 'start') return;
        await monitor.start();
        // The monitor reads its result cache as it starts (and logs its own warning about it).
        for (const problem of monitor.problems) board.raiseAtStart(problem);
      },
      close: () => monitor.stop(),
    },
    { name: 'reachability', start: (stage) => void (stage === 'start' && reachability.start()), close: () => reachability.stop() },
    { name: 'auto', start: (stage) => void (stage === 'start' && auto.start()), close: () => auto.stop() },
    { name: 'events', close: () => unsubscribers.forEach((unsubscribe) => unsubscribe()) },
    {
      name: 'network watch',
      start: (stage) => {
        if (stage === 'start') network?.start();
        if (stage === 'post-start' && network?.state() === 'none') auto.networkChanged('none');
      },
      close: () => network?.stop(),
    },
    { name: 'subscription refresh', start: (stage) => void (stage === 'started' && refresher.start()), close: () => refresher.stop() },
    { name: 'rule-set updates', start: (stage) => void (stage === 'started' && ruleSets.refresher.start()), close: () => ruleSets.refresher.stop() },
    {
      name: 'system proxy',
      start: (stage) => (stage === 'post-start' ? systemProxy?.follow(events, { settings: settings(), connection: connectionState() }) : undefined),
      close: () => systemProxy?.end(),
    },
  ]);
  await lifecycle.start();

  const snapshot = (): AppSnapshot => ({
    subscriptions: catalog.subscriptions().map(subscriptionForUi),
    statuses: statuses.listed(),
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
    getSharing: async () => sharing.view(),
    sharingCredentials: async () => sharing.credentials(),
    listApps: (r) => listApps(r.entries, { language: settings().language === 'system' ? undefined : settings().language }),
    captureScreen: async () => {
      throw new EngineRefusal('screen-reading-unavailable', 'reading the screen is possible only in the desktop app');
    },
    labControl: async (r) => {
      if (!options.labControl) throw new EngineRefusal('lab-unavailable', 'the Lab panel exists only in the demo');
      await options.labControl(r);
      return null;
    },
  };

  const engine: Engine = {
    ...handlers,
    on: (event, listener) => events.on(event, listener),
    onDecision: (listener) => auto.onDecision(listener),
    offerLink: (raw) => imports.offerLink(raw),
    startupProblems: () => board.atStart().map((problem) => problem.detail),
    systemWide: () => capture,
    killSwitch: () => killSwitch,
    async stop() {
      for (const failure of await lifecycle.close()) logger.warn(TAG, failure.message);
      logger.info(TAG, 'stopped');
    },
  };
  logger.info(TAG, `started: ${profile ? coreLabel(profile) : 'no core'}, ${subscriptions.list().length} subscription(s), ${catalog.index.all().length} server(s)`);
  return { engine, tunnel, server: (id) => catalog.index.get(id) };
}

/**
 * The kill switch where it runs (Linux, a host that can start the helper); found in force from an
 * earlier run, it is put on the board with its "turn off". Elsewhere a setting that asks for it is
 * logged: Windows and macOS have its config generation only (policy/platform-kill-switch.ts).
 */
async function startKillSwitch(o: {
  dataDir: string;
  logger: Logger;
  board: ProblemBoard;
  settings: () => Settings;
  servers: () => readonly { address: string }[];
  launch: ((mode: HelperMode) => LaunchCommand) | undefined;
}): Promise<KillSwitchFollower | null> {
  if (process.platform !== 'linux' || !o.launch) {
    if (o.settings().killSwitch) o.logger.warn(TAG, 'the kill switch is not available in this host');
    return null;
  }
  const { follower, left, since } = await KillSwitchFollower.start({
    killSwitch: new KillSwitch({ dataDir: o.dataDir, logger: o.logger, launch: o.launch }),
    wanted: o.settings,
    servers: o.servers,
    logger: o.logger,
    onProblem: (detail) => {
      if (detail) o.board.raise({ topic: { kind: 'system-wide' }, detail }, 'error');
      if (!o.settings().killSwitch) o.board.clear({ kind: 'kill-switch-left', since: null });
    },
  });
  if (left) o.board.raiseAtStart({ topic: { kind: 'kill-switch-left', since }, detail: left });
  return follower;
}

function noCaptureHelper(): never {
  throw new EngineRefusal('system-wide-unavailable', 'system-wide mode is not available in this host (it cannot start the privileged capture helper)');
}
