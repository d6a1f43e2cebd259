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
import type { EventName, EventPayloads } from '../../shared/ipc/contract';
import { AutoRuntime, autoConfigFrom } from '../auto/runtime';
import { autoStateFile } from '../auto/persisted';
import type { AutoProbePort } from '../auto/ports';
import { groupPicksFile } from '../auto/group-picks-file';
import { systemClock } from '../clock';
import { coreLabel } from '../core';
import { antiDpiFor, writableAntiDpi } from '../core/anti-dpi';
import { fragmentApplied } from '../core/probe-anti-dpi';
import { Emitter } from '../events';
import { ImportInbox } from '../imports/inbox';
import { fileSink } from '../log/logger';
import { Monitor } from '../monitor/monitor';
import { monitorCacheFile } from '../monitor/cache';
import { HttpDirectCheck } from '../monitor/direct-check';
import type { ServerProber } from '../monitor/ports';
import { NetworkWatcher } from '../network/watcher';
import { CarrierVantages, noVantageProber, ReachabilityRuntime } from '../reachability';
import { RoutingService } from '../routing/service';
import { SettingsFile } from '../settings/settings-file';
import { SettingsStore } from '../settings/store';
import { appFetcher } from '../subscriptions/app-fetcher';
import { SubscriptionRefresher } from '../subscriptions/refresher';
import { SubscriptionStore, subscriptionsFile } from '../subscriptions/store';
import { SystemProxyMode } from '../system-proxy/mode';
import { declaredIpv6 } from '../system-wide/capture';
import type { KnownIpv6 } from '../system-wide/policy/ipv6-capture';
import { CarrierProber } from '../tunnel/carrier-prober';
import { connectionStateOf } from './connection';
import { contractHandlers } from './contract';
import { captureFollowedTunnel, findCore, probeOutboundMark, startCapture } from './core-pieces';
import { WindowStatuses } from './window-statuses';
import { forwardNetworkChange } from './network-changes';
import { NetworkLossPort } from './network-loss';
import { NoCoreProber } from './no-core-prober';
import { ProblemBoard } from './problems';
import { RoutingInForce } from './routing-in-force';
import { ruleSetPieces } from './rule-sets';
import { ServerCatalog } from './server-catalog';
import { followServerIpv6 } from './ipv6-follow';
import { tunnelPorts } from './settings-changes';
import { SettingsPath } from './settings-path';
import { SharingCredentialsFile } from '../sharing/credentials';
import { HouseholdSharing } from '../sharing/sharing';
import { followSubscriptions } from './subscription-changes';
import { TunnelDriver } from './tunnel-driver';
import { countedVantages } from './test-budget';
import { routeEvents } from './event-routes';
import { GroupPicks } from './group-picks';
import { OwnFetchDestinations } from './own-fetches';
import { Lifecycle } from './lifecycle';
import { EngineRefusal } from '../../shared/domain/refusal';
import { startKillSwitch } from './kill-switch-start';
import type { Engine, EngineOptions, EngineParts } from './engine-api';

export type { Engine, EngineOptions, EngineParts };

const TAG = 'ENGINE';

export async function createEngine(options: EngineOptions): Promise<Engine> {
  return (await assembleEngine(options)).engine;
}

/** Builds the engine and keeps hold of its parts; only createEngine and testing/ call it. */
export async function assembleEngine(options: EngineOptions): Promise<EngineParts> {
  const { dataDir, logger } = options;
  const clock = options.clock ?? systemClock;
  const board = new ProblemBoard(clock);
  logger.addSink(fileSink(join(dataDir, 'app.log')));
  const metAtStart = (problem: Problem | null) => {
    if (!problem) return;
    logger.warn(TAG, problem.detail);
    board.raiseAtStart(problem);
  };

  // Settings first: everything else is configured from them. Every file's failed save goes on the board.
  const settingsStore = new SettingsStore(new SettingsFile({ dataDir, defaultMode: options.defaultMode, problems: board }));
  await settingsStore.load();
  metAtStart(settingsStore.problem);
  if (options.settingsOverrides) await settingsStore.save(settingsStore.validate(options.settingsOverrides));
  const settings = () => settingsStore.get();
  logger.setLevel(settings().logLevel);

  const core = await findCore({ corePath: settings().corePath, resourcesDir: options.resourcesDir }, logger);
  metAtStart('problem' in core ? core.problem : null);
  const profile = 'profile' in core ? core.profile : null;
  const carriers = 'carriers' in core ? core.carriers : [];
  const noCoreReason = 'problem' in core ? core.problem.detail : '';
  const runtimeDir = join(dataDir, 'runtime');
  const antiDpi = (id: ServerId) => antiDpiFor(settings().antiDpi, id);

  // The tunnel, with system-wide capture following it, on the routing of the settings. What is
  // known of a server's IPv6 (captured, or refused) is the monitor's, once it is built below.
  let serverIpv6: (server: Server) => KnownIpv6 | null = declaredIpv6;
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
      serverIpv6: (server) => serverIpv6(server),
    },
    settings().mode,
  );
  // System-proxy mode: what a crashed run left pointed at the app is put back first too.
  const systemProxy = options.systemProxy ? await SystemProxyMode.start(options.systemProxy, { dataDir, logger, problems: board }) : null;
  // Rule sets (copies under the data folder); fetched through the tunnel once there is one.
  let tunnelProxy: () => string | null = () => null;
  const ruleSets = await ruleSetPieces({ dataDir, logger, clock, router: profile, carriers, tunnelProxy: () => tunnelProxy(), sets: () => settings().routing.ruleSets, problems: board });
  metAtStart(ruleSets.store.problem);
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
    problems: board,
  });
  // The fetcher has logged it already.
  if (fetcher.problem) board.raiseAtStart(fetcher.problem);
  const subscriptions = new SubscriptionStore({ file: subscriptionsFile(dataDir, board), fetcher, clock, logger });
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
  // The server groups' picks are tested as the connection's are; they are chosen after Auto is built.
  let groupSelections: () => ServerId[] = () => [];
  const monitor = new Monitor({
    prober,
    clock,
    logger,
    settings: settings().monitor,
    cacheFile: monitorCacheFile(dataDir, board),
    servers: () => catalog.index.all(),
    selections: () => [driver.current(), ...groupSelections()].filter((id): id is ServerId => id !== null),
    queue: () => autoQueue(),
    directCheck: new HttpDirectCheck(() => capture.directProxy()),
    throughputUrl: options.throughputUrl,
    fragmentOn: (id) => {
      const found = catalog.index.withUpstream(id);
      return !!profile && !!found && fragmentApplied(antiDpiFor(settings().antiDpi, id), found.server, found.via, profile, carriers);
    },
  });
  serverIpv6 = (server) => monitor.status(server.id).ipv6;

  // Reachability verdicts: the outside view through other servers (spec/reachability.md).
  // The vantage cores are the chained prober's: kept apart from the counting wrapper so stop reaches them.
  const vantageCores = profile ? new CarrierVantages({ core: profile, carriers, runtimeDir, logger, url: () => settings().monitor.urls[0] as string, outboundMark: probeMark }) : null;
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
  const autoFile = autoStateFile(dataDir, board);
  const autoLoaded = await autoFile.load();
  metAtStart(autoLoaded.problem);
  // Auto and the server groups' pickers ask the monitor alike.
  const autoProbe: AutoProbePort = {
    probe: (id, timeoutMs) => monitor.probe(id, timeoutMs),
    transferTest: (id) => monitor.transferTest(id),
    eventTest: (id) => void monitor.testNow([id], 'selection'),
  };
  const auto = new AutoRuntime({
    clock,
    logger,
    config: autoConfigFrom(settings()),
    probe: autoProbe,
    measurements: monitor,
    tunnel: driver,
    subscriptions: { list: () => catalog.autoView() },
    reachability,
    store: { save: (state) => autoFile.save(state).catch((error: unknown) => logger.error(TAG, String(error))) },
    persisted: autoLoaded.value,
  });
  networkLoss.connect(auto);
  autoQueue = () => auto.candidateQueue();

  // Each server group's pick, by Auto's rules among its members, in the tunnel beside the main connection.
  const groupFile = groupPicksFile(dataDir, board);
  const groupsLoaded = await groupFile.load();
  metAtStart(groupsLoaded.problem);
  let autoChanged = (): void => undefined;
  const groupPicks = new GroupPicks({
    clock,
    logger,
    settings,
    config: () => autoConfigFrom(settings()),
    probe: autoProbe,
    measurements: monitor,
    reachability,
    status: (id) => monitor.status(id),
    servers: catalog.index,
    runsInTunnel: (id) => catalog.runsInTunnel(id),
    subscriptions: () => catalog.autoView(),
    tunnel,
    excludedInAuto: () => auto.excluded(),
    persisted: groupsLoaded.value,
    save: (state) => void groupFile.save(state).catch((error: unknown) => logger.error(TAG, String(error))),
    changed: () => autoChanged(),
  });
  groupSelections = () => groupPicks.picks();
  const autoSnapshot = () => ({ ...auto.snapshot(), groups: groupPicks.snapshots() });

  // Events: lower layers publish; the engine's services carry them to Auto, the monitor and the hosts.
  const events = new Emitter<EventPayloads>((error, event) => logger.error(TAG, `a ${String(event)} listener failed: ${String(error)}`));
  const publish =
    <E extends EventName>(event: E) =>
    (payload: EventPayloads[E]) =>
      events.emit(event, payload);
  autoChanged = () => events.emit('auto', autoSnapshot());
  const statuses = new WindowStatuses(monitor, reachability);
  const imports = new ImportInbox(clock, logger);
  const subscriptionTargets = {
    catalog,
    setProbedServers: (servers: readonly Server[]) => prober.setServers?.(servers),
    monitor,
    reachability,
    auto,
    publish: { subscriptions: publish('subscriptions'), unsupported: publish('unsupported'), carried: publish('carried') },
  };
  const unsubscribers = routeEvents({
    tunnel: built, sharing, auto, groupPicks, autoChanged: () => autoChanged(), monitor, ownFetches, logger, driver, capture, board, imports, statuses, reachability, subscriptions, subscriptionTargets,
    ruleSets: ruleSets.store, routing, settings, publish,
  });

  // System-wide capture takes the monitor's IPv6 finding that comes after the core started.
  unsubscribers.push(followServerIpv6({ subscribe: (listener) => monitor.subscribe(listener), capture, current: () => (driver.connected() ? driver.current() : null), server: (id) => catalog.index.get(id), reconnect: () => driver.reconnect(), logger }));

  // The kill switch (Linux, through the capture helper): as the settings say, following the servers.
  const killSwitch = await startKillSwitch({ dataDir: options.killSwitchDataDir ?? dataDir, logger, board, settings, servers: () => catalog.index.all(), launch: options.captureHelper });
  if (killSwitch) unsubscribers.push(subscriptions.onChange(() => void killSwitch.follow()));

  const settingsPath = new SettingsPath({
    store: settingsStore,
    routing,
    context: () => ({
      currentServer: driver.current(),
      credentials: () => sharingCredentials.get(),
      tunnelAntiDpi: (next) => {
        const current = driver.current();
        return profile && current ? writableAntiDpi(antiDpiFor(next.antiDpi, current), profile) : null;
      },
    }),
    targets: {
      capture,
      tunnel,
      restartTunnel: () => driver.reconnect(),
      rewriteProbes: () => prober.setServers?.(catalog.index.all()),
      setLogLevel: (level) => logger.setLevel(level),
      monitor,
      // The groups' pickers follow Auto's settings as Auto does.
      auto: { reconfigure: (config) => (auto.reconfigure(config), groupPicks.reconfigure(config)) },
      reachability,
      // A chain chosen in a server's details: the servers run by it again, measured again by their new path.
      chainsChanged: (change) => {
        followSubscriptions(subscriptions.list(), subscriptionTargets);
        void monitor.testNow(change.changed.filter((id) => catalog.index.get(id)), 'selection');
        if (change.reconnect) void driver.reconnect().catch((error: unknown) => logger.warn(TAG, `reconnect on the new chain failed: ${String(error)}`));
      },
      // A set just chosen is fetched at once; the kill switch follows what the settings now say.
      // The server groups follow the groups and members the settings now name.
      afterEach: () => {
        void ruleSets.refresher.refreshDue();
        void killSwitch?.follow();
        groupPicks.follow();
        groupPicks.membersMaybeChanged();
      },
      warn: (line) => logger.warn(TAG, line),
    },
    publish: { settings: publish('settings'), routing: publish('routing') },
  });

  const network = options.watchNetwork === false ? null : new NetworkWatcher(clock);
  const autoAndGroups = { networkChanged: (state: 'none' | 'up') => (auto.networkChanged(state), groupPicks.networkChanged(state)) };
  if (network) unsubscribers.push(network.onChange((change) => forwardNetworkChange(change, { auto: autoAndGroups, monitor, log: (line) => logger.info(TAG, line) })));

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
    { name: 'server groups', start: (stage) => void (stage === 'start' && groupPicks.follow()), close: () => groupPicks.stop() },
    { name: 'events', close: () => unsubscribers.forEach((unsubscribe) => unsubscribe()) },
    {
      name: 'network watch',
      start: (stage) => {
        if (stage === 'start') network?.start();
        if (stage === 'post-start' && network?.state() === 'none') autoAndGroups.networkChanged('none');
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

  const handlers = contractHandlers({
    snapshot: { catalog, statuses, connection: connectionState, auto: { snapshot: autoSnapshot }, settings, profile, monitor, demo: options.labControl !== undefined, board, imports, routing },
    coresWanted: { corePath: settings().corePath, resourcesDir: options.resourcesDir },
    catalog, driver, auto, groupPicks, monitor, statuses, reachability, subscriptions, imports, settingsPath, board, sharing, settings,
    connection: connectionState,
    labControl: options.labControl,
  });

  const engine: Engine = {
    ...handlers,
    on: (event, listener) => events.on(event, listener),
    onDecision: (listener) => auto.onDecision(listener),
    offerLink: (raw) => imports.offerLink(raw),
    startupProblems: () => board.atStart(),
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

function noCaptureHelper(): never {
  throw new EngineRefusal('system-wide-unavailable', 'system-wide mode is not available in this host (it cannot start the privileged capture helper)');
}
