/**
 * The composition root: builds every service of the engine with its collaborators and binds them
 * to the IPC contract. Hosts (Electron, the headless host, the CLI) only create an engine and
 * forward the contract to it; nothing above this file knows how the services are wired.
 *
 * The flow runs one way: the tunnel and the monitor publish (traffic, results, dial failures),
 * Auto listens and commands, and every change reaches the hosts as a contract event.
 */
import { antiDpiAbilities, antiDpiFor, fragmentWritten } from '../core/anti-dpi';
import { join } from 'node:path';
import type { TrafficSample } from '../../shared/domain/connection';
import type { Problem } from '../../shared/domain/problem';
import type { Server, ServerId, SubscriptionId } from '../../shared/domain/server';
import type { ServerStatus } from '../../shared/domain/status';
import type { Subscription } from '../../shared/domain/subscription';
import type { AppSnapshot, EventName, EventPayloads, InvokeRequest, InvokeResponses, VpnClient } from '../../shared/ipc/contract';
import { type ConnectionMode, type Settings, type SettingsPatch, settingsPatchSchema } from '../../shared/settings';
import { AutoRuntime, autoConfigFrom } from '../auto/runtime';
import { autoStateFile } from '../auto/persisted';
import type { SubscriptionServers } from '../auto/policy/world';
import { type Clock, systemClock } from '../clock';
import { type CoreProfile, coreLabel, detectCore, locateCore, unsupportedReason } from '../core';
import { type Logger, fileSink } from '../log/logger';
import { Monitor } from '../monitor/monitor';
import { monitorCacheFile } from '../monitor/cache';
import { HttpDirectCheck } from '../monitor/direct-check';
import type { ServerProber } from '../monitor/ports';
import { NetworkWatcher } from '../network/watcher';
import { type SettingsBackend, SettingsFile } from '../settings/settings-file';
import { SettingsStore } from '../settings/store';
import { saveProblemOf } from '../storage/json-file';
import { HttpSubscriptionFetcher } from '../subscriptions/fetch';
import { deviceHeaders, loadDeviceIdentity } from '../subscriptions/device-identity';
import { SubscriptionRefresher } from '../subscriptions/refresher';
import type { LaunchCommand } from '../system-wide/linux/policy/elevation';
import { coreCanCapture } from '../system-wide/core-privilege';
import { DEFAULT_CORE_MARK } from '../system-wide/linux/policy/capture-plan';
import { SystemWideCapture } from '../system-wide/system-wide';
import { type SystemProxyHost, SystemProxyMode } from '../system-proxy/mode';
import { SubscriptionStore, subscriptionsFile } from '../subscriptions/store';
import { ChainedProber, noVantageProber, ReachabilityRuntime } from '../reachability';
import { RoutingService } from '../routing/service';
import { TunnelController } from '../tunnel/controller';
import { CoreProber } from '../tunnel/prober';
import { Emitter, listenerErrorsTo } from '../events';
import { importHandlers } from '../imports/handlers';
import { shareLink } from '../subscriptions/share/share-link';
import { TunnelFallbackFetcher } from '../subscriptions/tunnel-fallback';
import { ImportInbox } from '../imports/inbox';
import type { ImportRequest } from '../../shared/domain/import-request';
import { forwardNetworkChange } from './network-changes';
import { NoCoreProber } from './no-core-prober';
import { connectTarget } from './connect-target';
import { NetworkLossPort } from './network-loss';
import { ProblemBoard } from './problems';
import { selectionReport } from './selection-lines';
import { ServerIndex } from './server-index';
import { TunnelDriver } from './tunnel-driver';
import { VerdictBatcher } from './verdict-batcher';
import { subscriptionForUi } from './ui-view';

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
  systemWide(): SystemWideCapture;
};

const TAG = 'ENGINE';

export async function createEngine(options: EngineOptions): Promise<Engine> {
  const { dataDir, logger } = options;
  const clock = options.clock ?? systemClock;
  const problems: Problem[] = [];
  const board = new ProblemBoard(clock);
  logger.addSink(fileSink(join(dataDir, 'app.log')));
  const removeSaveSink = logger.addSink(board.saveFailures());

  // Settings first: everything else is configured from them.
  const settingsStore = new SettingsStore(
    new SettingsFile({ dataDir, backend: options.settingsBackend, defaultMode: options.defaultMode }),
    listenerErrorsTo(logger, TAG),
  );
  await settingsStore.load();
  if (settingsStore.problem) problems.push(settingsStore.problem);
  if (options.settingsOverrides) await settingsStore.update(options.settingsOverrides);
  let settings = settingsStore.get();
  logger.setLevel(settings.logLevel);

  // The core: found and understood once at start (a changed core path takes a restart).
  const core = await findCore(settings, options.resourcesDir, logger);
  if ('problem' in core) problems.push({ topic: { kind: 'no-core' }, detail: core.problem });
  const profile: CoreProfile | null = 'profile' in core ? core.profile : null;
  const noCoreReason = 'problem' in core ? core.problem : '';
  const runtimeDir = join(dataDir, 'runtime');

  // Subscriptions and the server index.
  const device = await loadDeviceIdentity(dataDir);
  if (device.problem) logger.warn(TAG, device.problem);
  // A provider blocked on the user's network is asked again through the tunnel, when one is up.
  const fetcher = new TunnelFallbackFetcher(
    new HttpSubscriptionFetcher({ extraHeaders: deviceHeaders(device.identity) }),
    () => (tunnel?.state().state === 'connected' ? tunnel.state().httpProxy : null),
    logger,
  );
  const subscriptions = new SubscriptionStore({ file: subscriptionsFile(dataDir), fetcher, clock, logger });
  await subscriptions.load();
  if (subscriptions.problem) problems.push(subscriptions.problem);
  const index = new ServerIndex();
  index.rebuild(subscriptions.list());
  // Auto reads the list on every step: keep its shape ready instead of rebuilding it each time.
  let autoSubscriptions = autoViewOf(subscriptions.list());
  let unsupported = computeUnsupported(index, profile);

  // System-wide mode: the capture follows the tunnel; a killed run's capture is removed first.
  const capture = new SystemWideCapture({
    dataDir,
    logger,
    launch: options.captureHelper ?? noCaptureHelper,
    corePath: profile?.path,
    // The LAN is left out of the capture exactly when the routing sends it direct.
    bypassLan: () => settings.routing.bypassLan,
  });
  capture.setMode(settings.mode);
  await capture.recoverAfterCrash();
  // System-proxy mode: what a crashed run left pointed at the app is put back first too.
  const systemProxy = options.systemProxy ? await SystemProxyMode.start(options.systemProxy, { dataDir, logger }) : null;
  // Routing: the region data loaded once; the tunnel's core is written with the plan in force.
  const routingService = await RoutingService.create(options.resourcesDir, profile);
  let routingState = routingService.stateFor(settings);
  for (const notice of routingState.view.notices) logger.warn(TAG, `routing: ${notice}`);

  // Tunnel and prober (a null-object prober without a core, so the monitor can say why).
  const tunnel = profile
    ? new TunnelController({
        core: profile,
        runtimeDir,
        logger,
        clock,
        httpPort: settings.httpPort,
        socksPort: settings.socksPort,
        listen: listenAddress(settings),
        transparent: () => capture.transparentFor(),
        routing: routingState.routing,
        antiDpi: (id) => antiDpiFor(settings.antiDpi, id),
      })
    : null;
  // Probes go through each server, never through system-wide capture: where the core may capture,
  // the probe cores mark their connections like the tunnel does (the mark alone changes nothing).
  const probeMark = profile && (await coreCanCapture(profile.path)) ? DEFAULT_CORE_MARK : undefined;
  const prober: ServerProber & { close?(): Promise<void>; setServers?(s: readonly Server[]): void } = profile
    ? new CoreProber({ core: profile, runtimeDir, logger, clock, outboundMark: probeMark, antiDpi: (id) => antiDpiFor(settings.antiDpi, id) })
    : new NoCoreProber(noCoreReason);
  prober.setServers?.(index.all());
  const driver = new TunnelDriver(() => tunnel, index, () => noCoreReason);

  // The monitor.
  const monitor = new Monitor({
    prober,
    clock,
    logger,
    settings: settings.monitor,
    cacheFile: monitorCacheFile(dataDir),
    servers: () => index.all(),
    selections: () => [driver.current()].filter((id): id is ServerId => id !== null),
    directCheck: new HttpDirectCheck(() => capture.directProxy()),
    throughputUrl: options.throughputUrl,
    fragmentOn: (id) => fragmentWritten(settings.antiDpi, id, profile),
  });

  // Reachability verdicts: the outside view through other servers (spec/reachability.md).
  const vantages = profile
    ? new ChainedProber({ core: profile, runtimeDir, logger, url: () => settings.monitor.urls[0] as string, outboundMark: probeMark })
    : noVantageProber(noCoreReason);
  const networkLoss = new NetworkLossPort(clock);
  const reachability = new ReachabilityRuntime({
    clock,
    logger,
    servers: () => index.all(),
    monitor,
    here: monitor,
    vantages,
    settings: () => ({
      intervalMs: settings.monitor.intervalMs,
      urlTestTimeoutMs: settings.monitor.urlTestTimeoutMs,
      trustedCheckerId: settings.trustedCheckerId,
    }),
    networkLost: () => networkLoss.reason(),
  });

  // Auto, with its state persisted beside the rest.
  const autoFile = autoStateFile(dataDir);
  const autoLoaded = await autoFile.load();
  if (autoLoaded.problem) problems.push(autoLoaded.problem);
  const auto = new AutoRuntime({
    clock,
    logger,
    config: autoConfigFrom(settings),
    probe: {
      probe: (id, timeoutMs) => monitor.probe(id, timeoutMs),
      transferTest: (id) => monitor.transferTest(id),
      eventTest: (id) => void monitor.testNow([id], 'selection'),
    },
    measurements: monitor,
    tunnel: driver,
    subscriptions: { list: () => autoSubscriptions },
    reachability,
    store: { save: (state) => autoFile.save(state).catch((error: unknown) => logger.error(TAG, String(error), saveProblemOf(error))) },
    persisted: autoLoaded.value,
  });

  networkLoss.connect(auto);

  // Auto's keep/take decisions as the monitor's LOWEST lines.
  auto.onDecision((decision) => {
    const subscription = subscriptions.get(auto.snapshot().subscriptionId ?? '');
    const group = subscription ? { name: subscription.name, serverIds: subscription.servers.map((server) => server.id) } : null;
    const report = selectionReport(decision, group, (id) => monitor.status(id).delayMs);
    if (report) monitor.reportSelection(report);
  });

  // Events: lower layers publish, the engine forwards to Auto, the monitor and the hosts.
  const events = new Emitter<EventPayloads>((error, event) => logger.error(TAG, `a ${String(event)} listener failed: ${String(error)}`));
  const emit = <E extends EventName>(event: E, payload: EventPayloads[E]) => events.emit(event, payload);
  const unsubscribers: (() => void)[] = [];

  if (tunnel) {
    unsubscribers.push(
      capture.bind(tunnel),
      capture.onChange((status) => {
        if (status.error) board.add('system-wide', status.error, 'error');
      }),
      tunnel.on('traffic', (sample: TrafficSample) => {
        auto.traffic(sample);
        if (sample.upBytes + sample.downBytes > 0) monitor.trafficSeen(sample.at);
        emit('traffic', sample);
      }),
      tunnel.on('dialFailure', (failure) => {
        auto.dialFailure(failure.serverId);
        void monitor.testNow([failure.serverId], 'member-failed');
      }),
      tunnel.on('state', (state) => {
        if (state.state === 'connected' && state.serverId) {
          auto.tunnelConnected(state.serverId);
          monitor.connectionActivity();
        } else if (state.state === 'disconnected' || (state.state === 'failed' && !driver.isWanted())) {
          auto.tunnelDisconnected();
        }
        emit('connection', state);
      }),
    );
  }
  const withReachability = (status: ServerStatus): ServerStatus => ({ ...status, reachability: reachability.reachability(status.serverId) });
  const verdicts = new VerdictBatcher({
    clock,
    windowMs: () => settings.monitor.debounceWindowMs,
    exists: (id) => index.get(id) !== undefined,
    publish: (ids) => emit('statuses', ids.map((id) => withReachability(monitor.status(id)))),
  });
  const imports = new ImportInbox(clock, logger);
  unsubscribers.push(
    imports.onChange((list) => emit('importRequests', list)),
    board.onChange((list) => emit('problems', list)),
    removeSaveSink,
    monitor.subscribe((statuses) => emit('statuses', statuses.map(withReachability))),
    reachability.onChange(({ serverId }) => verdicts.note(serverId)),
    monitor.onProgress((progress) => emit('testProgress', progress)),
    auto.onChange((snapshot) => emit('auto', snapshot)),
    subscriptions.onChange((list) => {
      index.rebuild(list);
      autoSubscriptions = autoViewOf(list);
      unsupported = computeUnsupported(index, profile);
      prober.setServers?.(index.all());
      monitor.serversChanged();
      reachability.refresh();
      auto.subscriptionsUpdated();
      emit('subscriptions', list.map(subscriptionForUi));
      emit('unsupported', unsupported);
    }),
    settingsStore.onChange((next) => {
      const modeChanged = next.mode !== settings.mode;
      const antiDpiChanged = JSON.stringify(next.antiDpi) !== JSON.stringify(settings.antiDpi);
      settings = next;
      capture.setMode(next.mode);
      // Entering or leaving system-wide mode changes the core's inbounds: reconnect to the same server.
      const current = driver.current();
      // So do the anti-DPI options (the prober's copies too, so tests measure the tunnel's path).
      if (antiDpiChanged) prober.setServers?.(index.all());
      if ((modeChanged || antiDpiChanged) && current && driver.connected()) void driver.connect(current).catch((error: unknown) => logger.warn(TAG, `reconnect after the mode or anti-DPI change failed: ${String(error)}`));
      logger.setLevel(next.logLevel);
      monitor.setSettings(next.monitor);
      auto.reconfigure(autoConfigFrom(next));
      reachability.refresh();
      tunnel?.setPorts({ httpPort: next.httpPort, socksPort: next.socksPort, listen: listenAddress(next) });
      const nextRouting = routingService.stateFor(next);
      if (nextRouting.key !== routingState.key || JSON.stringify(nextRouting.view) !== JSON.stringify(routingState.view)) {
        // Applied already when the change came through setSettings (see applyRouting).
        if (nextRouting.key !== routingState.key) void tunnel?.setRouting(nextRouting.routing).catch((e: unknown) => logger.warn(TAG, `routing: ${String(e)}`));
        routingState = nextRouting;
        emit('routing', routingState.view);
      }
      emit('settings', next);
    }),
  );

  const network = options.watchNetwork === false ? null : new NetworkWatcher(clock);
  if (network) {
    unsubscribers.push(
      network.onChange((change) => forwardNetworkChange(change, { auto, monitor, log: (line) => logger.info(TAG, line) })),
    );
    network.start();
  }

  for (const problem of problems) {
    logger.warn(TAG, problem.detail);
    board.add(`startup:${problem.detail}`, problem.detail, 'warning', problem.topic);
  }
  const refresher = new SubscriptionRefresher(subscriptions, clock, logger);
  refresher.start();
  await monitor.start();
  // The monitor reads its result cache as it starts (and logs its own warning about it).
  for (const problem of monitor.problems) {
    problems.push(problem);
    board.add(`startup:${problem.detail}`, problem.detail, 'warning', problem.topic);
  }
  reachability.start();
  auto.start();
  if (network?.state() === 'none') auto.networkChanged('none');

  const statusesRecord = (): Record<ServerId, ServerStatus> => Object.fromEntries(monitor.snapshot().map((s) => [s.serverId, withReachability(s)]));
  const connectionState = () =>
    tunnel?.state() ?? { state: 'disconnected' as const, serverId: null, httpProxy: null, socksProxy: null, since: null, error: noCoreReason, core: null };
  await systemProxy?.follow(events, { settings, connection: connectionState() });

  const snapshot = (): AppSnapshot => ({
    subscriptions: subscriptions.list().map(subscriptionForUi),
    statuses: statusesRecord(),
    unsupported,
    connection: connectionState(),
    auto: auto.snapshot(),
    settings,
    core: profile ? { family: profile.family, version: profile.version, path: profile.path, antiDpi: antiDpiAbilities(profile) } : null,
    testProgress: monitor.progress(),
    demo: options.labControl !== undefined,
    problems: board.list(),
    importRequests: imports.list(),
    routing: routingState.view,
  });

  /**
   * A routing change is tried on the tunnel before it is saved: a routing the core refuses leaves
   * the running tunnel and the saved settings as they were, and the error names why.
   */
  const applyRouting = async (patch: SettingsPatch): Promise<(() => Promise<void>) | null> => {
    if (patch.routing === undefined && patch.dns === undefined) return null;
    const parsed = settingsPatchSchema.safeParse(patch);
    if (!parsed.success) return null; // the store names the entry at fault
    const candidate = routingService.stateFor({ routing: parsed.data.routing ?? settings.routing, dns: parsed.data.dns ?? settings.dns });
    if (candidate.key === routingState.key) return null;
    const previous = routingState;
    const restarted = await tunnel?.setRouting(candidate.routing);
    if (restarted) logger.info(TAG, 'routing changed: the core restarted on the same server');
    routingState = { ...routingState, key: candidate.key };
    return async () => {
      routingState = previous;
      await tunnel?.setRouting(previous.routing);
    };
  };

  const requireSubscription = (id: SubscriptionId) => {
    const found = subscriptions.get(id);
    if (!found) throw new Error(`no subscription with id "${id}"`);
    return found;
  };

  const handlers: { [C in keyof InvokeResponses]: (request: InvokeRequest<C>) => Promise<InvokeResponses[C]> } = {
    getSnapshot: async () => snapshot(),
    addSubscription: async (r) =>
      subscriptionForUi(await subscriptions.add(r.url !== undefined ? { url: r.url } : { text: r.text ?? '' }, r.name, { userAgent: r.userAgent })),
    updateSubscription: async (r) => subscriptionForUi(await subscriptions.update(requireSubscription(r.id).id)),
    removeSubscription: async (r) => {
      requireSubscription(r.id);
      await subscriptions.remove(r.id);
      return null;
    },
    reorderSubscriptions: async (r) => {
      await subscriptions.reorder(r.ids);
      return null;
    },
    confirmEmptySubscription: async (r) => subscriptionForUi(await subscriptions.confirmEmpty(requireSubscription(r.id).id)),
    connect: async (r) => {
      const serverId = connectTarget({
        requested: r.serverId,
        current: driver.current(),
        autoSubscriptionId: auto.snapshot().subscriptionId,
        subscriptions: autoSubscriptions,
        excluded: auto.snapshot().excluded,
        unsupported,
        delayOf: (id) => monitor.status(id).delayMs,
      });
      if (!serverId) throw new Error('choose a server to connect to, or turn Auto on for a subscription');
      index.require(serverId);
      const reason = unsupported[serverId];
      if (reason) throw new Error(reason);
      if (r.serverId !== undefined) auto.manualConnect(serverId);
      await driver.connect(serverId);
      void monitor.testNow([serverId], 'selection');
      return connectionState();
    },
    disconnect: async () => {
      await driver.disconnect();
      return connectionState();
    },
    setAuto: async (r) => {
      if (r.subscriptionId !== null) requireSubscription(r.subscriptionId);
      const outcome = auto.setAuto(r.subscriptionId);
      if (!outcome.ok) throw new Error(outcome.error);
      return auto.snapshot();
    },
    setExcluded: async (r) => {
      requireSubscription(r.subscriptionId);
      const outcome = auto.setExcluded(r.subscriptionId, r.serverIds);
      if (!outcome.ok) throw new Error(outcome.error);
      return auto.snapshot();
    },
    testAll: async () => {
      monitor.testAll();
      return null;
    },
    testServer: async (r) => {
      index.require(r.serverId);
      return withReachability(await monitor.testStaged(r.serverId));
    },
    measureThroughput: async (r) => {
      index.require(r.serverId);
      return withReachability(await monitor.measureThroughput(r.serverId));
    },
    getHistory: async (r) => {
      index.require(r.serverId);
      return monitor.history(r.serverId);
    },
    exportObservation: async () => {
      const observation = monitor.exportObservation();
      return { ...observation, servers: observation.servers.map((s) => ({ ...s, reachability: reachability.reachability(s.serverId) })) };
    },
    setSettings: async (patch) => {
      const revertRouting = await applyRouting(patch);
      try {
        return await settingsStore.update(patch);
      } catch (error) {
        await revertRouting?.();
        throw error;
      }
    },
    dismissProblem: async (r) => {
      board.dismiss(r.id);
      return null;
    },
    ...importHandlers(imports, async (source, name) => subscriptionForUi(await subscriptions.add(source, name))),
    shareLink: async (r) => ({ link: 'serverId' in r ? shareLink(index.require(r.serverId)) : (requireSubscription(r.subscriptionId).url ?? null) }),
    captureScreen: async () => {
      throw new Error('reading the screen is possible only in the desktop app');
    },
    labControl: async (r) => {
      if (!options.labControl) throw new Error('the Lab panel exists only in the demo');
      await options.labControl(r);
      return null;
    },
  };

  let stopped = false;
  const engine: Engine = {
    ...handlers,
    on: <E extends EventName>(event: E, listener: (payload: EventPayloads[E]) => void) => events.on(event, listener),
    onDecision: (listener: Parameters<AutoRuntime['onDecision']>[0]) => auto.onDecision(listener),
    tunnel: () => tunnel,
    offerLink: (raw: string) => imports.offerLink(raw),
    startupProblems: () => problems.map((problem) => problem.detail),
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
      await Promise.allSettled([prober.close?.(), vantages instanceof ChainedProber ? vantages.stop() : undefined]);
      logger.info(TAG, 'stopped');
    },
  };
  logger.info(TAG, `started: ${profile ? coreLabel(profile) : 'no core'}, ${subscriptions.list().length} subscription(s), ${index.all().length} server(s)`);
  return engine;
}

async function findCore(settings: Settings, resourcesDir: string | undefined, logger: Logger): Promise<{ profile: CoreProfile } | { problem: string }> {
  const found = await locateCore({ settingPath: settings.corePath, resourcesDir });
  if ('error' in found) return { problem: found.error };
  try {
    const profile = await detectCore(found.path);
    logger.info(TAG, `core: ${coreLabel(profile)} at ${found.path} (${found.source})`);
    return { profile };
  } catch (error) {
    return { problem: `the core at ${found.path} could not be used: ${error instanceof Error ? error.message : String(error)}` };
  }
}

function computeUnsupported(index: ServerIndex, profile: CoreProfile | null): Record<ServerId, string> {
  const out: Record<ServerId, string> = {};
  if (!profile) return out;
  for (const server of index.all()) {
    const via = server.via ? index.get(server.via) : undefined;
    const reason = unsupportedReason(server, profile, via);
    if (reason) out[server.id] = reason;
  }
  return out;
}

function autoViewOf(list: readonly Subscription[]): SubscriptionServers[] {
  return list.map((s) => ({ id: s.id, serverIds: s.servers.map((server) => server.id) }));
}

function noCaptureHelper(): never {
  throw new Error('system-wide mode is not available in this host (it cannot start the privileged capture helper)');
}

function listenAddress(settings: Settings): string {
  return settings.allowLan ? '0.0.0.0' : '127.0.0.1';
}
