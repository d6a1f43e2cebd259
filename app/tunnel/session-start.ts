/**
 * Bringing one connection's cores up: its ports checked, its config written (anti-DPI, routing,
 * groups, sharing, the transparent inbound), a carrier first for a server the main core cannot
 * run, then the main core, its failure tracking and its traffic meter. The controller decides
 * when (connect, switch, restart); this says how, and reports what the cores say through `report`.
 */
import { rm } from 'node:fs/promises';
import type { TrafficSample } from '../../shared/domain/connection';
import type { Server, ServerId } from '../../shared/domain/server';
import { antiDpiActive, type AntiDpiOptions, antiDpiUnavailable } from '../core/anti-dpi';
import type { Clock, TimerHandle } from '../clock';
import {
  carriedAntiDpi,
  type CarriedAntiDpi,
  type CarrierChoice,
  carrierStandIn,
  certificateNotApplied,
  coreLabel,
  type CoreProfile,
  type CoreRouting,
  type GroupRoute,
  groupDialTag,
  groupPickCarrier,
  groupRouteInCore,
  groupTag,
  isRefusedLogin,
  onCarriedGroupHop,
  type ShareInbounds,
  singBoxCarrierConfig,
  type CoreCapture,
  hasTransparentInbounds,
  TUNNEL_TAGS,
  tunnelConfig,
  userInboundTags,
  writeConfigFile,
} from '../core';
import type { Logger } from '../log/logger';
import { type CoreExit, CoreProcess } from './core-process';
import { GroupCarrier } from './group-carrier';
import { type AttributedFailure, type DialRetry, OutboundFailureTracker } from './outbound-failures';
import { coreStarted, FRESH_HISTORY, type RestartHistory } from './policy/restart-backoff';
import { PICKED_PORT_STARTS, pickedPortTaken } from './policy/picked-port';
import { assertPortFree, dialableHost, freePorts } from './ports';
import { StatsClient } from './stats-client';
import { DEFAULT_TRAFFIC_INTERVAL_MS, TrafficMeter } from './traffic-meter';

const TAG = 'TUNNEL';

export interface TunnelPorts {
  httpPort: number;
  socksPort: number;
  /** Loopback: these proxies have no password. */
  listen?: string;
  /** Household sharing: the same proxies on a private LAN address, behind a password (null: off). */
  share?: ShareInbounds | null;
}

/** What starting cores takes from the tunnel's options. */
export interface CoreStartOptions {
  core: CoreProfile;
  /** Cores that carry what `core` cannot (sing-box), as a second process it dials on loopback. */
  carriers?: readonly CoreProfile[];
  /** Where the 0600 config file is written (the app data folder's runtime directory). */
  runtimeDir: string;
  logger: Logger;
  statsIntervalMs?: number;
  readyTimeoutMs?: number;
  /**
   * Asked before every core start, with the server it is for (its IPv6 decides whether captured
   * IPv6 goes to it): the transparent inbound of system-wide mode, or null. It may throw (no
   * administrator rights): the connection then fails with its words.
   */
  transparent?: (server: Server, via?: Server) => Promise<CoreCapture | null>;
  /** The server's anti-DPI options, asked at every core start; written only where the core has them. */
  antiDpi?: (serverId: ServerId) => AntiDpiOptions | null;
}

/** One connection to a server: its cores, their meter and stats, and its restart record. */
export interface Session {
  server: Server;
  via?: Server;
  /** Which core carries the server (the main core, or a carrier beside it). */
  choice: Exclude<CarrierChoice, { kind: 'unsupported' }>;
  core: CoreProcess | null;
  /** The carrier's process, for a carried server. */
  carrier: CoreProcess | null;
  carrierFile?: string;
  /** The other process of a pair that lost one, while it stops. */
  stopping: Promise<unknown> | null;
  meter: TrafficMeter | null;
  stats: StatsClient | null;
  restartTimer: TimerHandle | null;
  history: RestartHistory;
  exitedAt: number | null;
  /** Where its config was written (the runtime folder, or the fallback when that was full). */
  configFile?: string;
  /** The core's API inbound (stats; on Xray also the handler service groups are swapped through). */
  apiPort?: number;
  /** The carrier's loopback SOCKS5 inbound the main core dials, for a carried server. */
  carrierPort?: number;
  /** The main core's loopback inbound a carrier dials the server through, for the anti-DPI options. */
  antiDpiPort?: number;
  /** The carriers of groups whose pick only a carrier runs, by group name (group-carrier.ts). */
  groupCarriers: Map<string, GroupCarrier>;
  /** SO_MARK of the cores' connections to servers under system-wide capture, for a group carrier started later. */
  routingMark?: number;
}

export function newSession(server: Server, via: Server | undefined, choice: Session['choice']): Session {
  return { server, via, choice, core: null, carrier: null, groupCarriers: new Map(), stopping: null, meter: null, stats: null, restartTimer: null, history: FRESH_HISTORY, exitedAt: null };
}

/** What a start needs of the controller at that moment. */
export interface SessionStart {
  options: CoreStartOptions;
  ports: Required<TunnelPorts>;
  routing: CoreRouting | undefined;
  groups: readonly GroupRoute[];
  clock: Clock;
  /** Whether the session is still the tunnel's (a connect may replace it while it starts). */
  isCurrent: () => boolean;
  /** Where the cores' reports go. */
  report: {
    failure: (failure: AttributedFailure) => void;
    retry: (retry: DialRetry) => void;
    loginRefused: () => void;
    exit: (core: CoreProcess, exit: CoreExit) => void;
    traffic: (sample: TrafficSample) => void;
  };
}

/**
 * Writes the config, starts the core (and its carrier) and its traffic meter; resolves with the
 * main core's start time. A carrier never outlives a main core that did not come up.
 */
export async function startSession(session: Session, start: SessionStart): Promise<number> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await startPair(session, start);
    } catch (error) {
      await Promise.all([stopCarrier(session), stopGroupCarriers(session)]);
      const message = error instanceof Error ? error.message : String(error);
      // A port picked for the core was taken before it bound it: fresh ones, as a user would retry.
      if (attempt >= PICKED_PORT_STARTS || !start.isCurrent() || !pickedPortTaken(message, [session.apiPort, session.carrierPort, session.antiDpiPort])) throw error;
      start.options.logger.info(TAG, `${message}; a port picked for the core was taken meanwhile: starting again with fresh ones (${attempt + 1} of ${PICKED_PORT_STARTS})`);
    }
  }
}

async function startPair(session: Session, start: SessionStart): Promise<number> {
  const { options, ports, routing, clock, report } = start;
  const { logger } = options;
  const { listen, httpPort, socksPort, share } = ports;
  await assertPortFree(httpPort, listen, 'HTTP proxy');
  await assertPortFree(socksPort, listen, 'SOCKS5 proxy');
  if (share) {
    logger.redactor.add(share.password);
    await assertShareable(share.httpPort, share.address, 'shared HTTP proxy');
    await assertShareable(share.socksPort, share.address, 'shared SOCKS5 proxy');
  }
  const transparent = (await options.transparent?.(session.server, session.via)) ?? undefined;
  session.routingMark = transparent?.mark;
  // A restart after an exit brings the groups' carriers up again with the rest, on fresh ports.
  await stopGroupCarriers(session);
  const carriedGroups = start.groups.filter((g) => groupPickCarrier(g, options.core, options.carriers ?? []));
  const carried = session.choice.kind === 'carried' ? session.choice.core : null;
  const asked = options.antiDpi?.(session.server.id) ?? null;
  // A carried server's options are applied by the main core, on the carrier's way to the server.
  const throughMain = carried ? carriedAntiDpi(asked, options.core, session.via ?? session.server) : null;
  const antiDpi = throughMain ? throughMain.written : asked;
  // Taken together, so the API, the carrier's inbound and the anti-DPI inbound never share a
  // port, and none is one of the user's proxies, which are free until the main core binds them.
  const own = new Set([httpPort, socksPort, ...(share ? [share.httpPort, share.socksPort] : []), ...(transparent && hasTransparentInbounds(transparent) ? [transparent.port, transparent.directPort] : [])]);
  const [apiPort, carrierPort, antiDpiPort, ...groupPorts] = (await freePorts(3 + carriedGroups.length + own.size)).filter((port) => !own.has(port)) as [number, number, number, ...number[]];
  const groupPort = new Map(carriedGroups.map((g, i) => [g.name, groupPorts[i]!]));
  const antiDpiInbound = throughMain?.written ? { port: antiDpiPort, udp: throughMain.udp } : undefined;
  session.antiDpiPort = antiDpiInbound?.port;
  warnOfWhatIsNotApplied(session, options, carried, antiDpi, throughMain);
  // A carried server: the main core dials a SOCKS5 hop to the carrier in the server's place. The
  // two start at once: the main core dials the hop only when traffic comes, by which time both are
  // ready, so a switch waits for the slower start instead of both in turn.
  const carrierStart = carried ? startCarrier(session, start, carried, { port: carrierPort, mark: transparent?.mark, antiDpi: antiDpiInbound }) : null;
  const hop = carried ? carrierStandIn(session.server, carrierPort) : null;
  // A group's carried pick gets a carrier of its own, started beside the main core the same way.
  const groupCarriersStart = Promise.all(carriedGroups.map(async (g) => session.groupCarriers.set(g.name, await startGroupCarrier(session, start, g, groupPort.get(g.name)!))));
  const config = tunnelConfig({
    antiDpi,
    ...(antiDpiInbound ? { antiDpiInbound } : {}),
    server: hop ?? session.server,
    via: hop ? undefined : session.via,
    core: options.core,
    listen,
    httpPort,
    socksPort,
    apiPort,
    transparent,
    ...(share ? { share } : {}),
    // info, not warning: a server that resets or closes the connection is logged only at info.
    logLevel: 'info',
    routing,
    groups: start.groups.map((g) => groupRouteInCore(g, groupPort.get(g.name))),
  });
  // The access log would name every site the user visits; nothing here needs it.
  (config.log as Record<string, unknown>).access = 'none';
  const file = await writeConfigFile(options.runtimeDir, 'tunnel', config);
  session.configFile = file;
  session.apiPort = apiPort;
  const [mainStart, carrierStarted] = await Promise.allSettled([
    CoreProcess.start({
      core: options.core,
      configPath: file,
      readyPort: httpPort,
      readyHost: dialableHost(listen),
      readyTimeoutMs: options.readyTimeoutMs,
      logger,
      logTag: TAG,
      label: 'tunnel core',
      assetDir: routing?.assetDir,
    }),
    carrierStart,
    groupCarriersStart,
  ]);
  if (mainStart.status === 'rejected' || carrierStarted.status === 'rejected') {
    // Neither outlives the other's failed start (the caller stops the carrier).
    if (mainStart.status === 'fulfilled') await mainStart.value.stop();
    throw mainStart.status === 'rejected' ? mainStart.reason : (carrierStarted as PromiseRejectedResult).reason;
  }
  const core = mainStart.value;
  if (!start.isCurrent()) {
    await core.stop();
    throw new Error('the connection was replaced while it started');
  }
  session.core = core;
  session.history = coreStarted(session.history, clock.now());
  // A carried group pick's failures are its carrier's to report, as a carried server's are (below).
  const failure = (f: AttributedFailure) => onCarriedGroupHop(f.outboundTag, session.groupCarriers.keys()) || report.failure(f);
  const tracker = new OutboundFailureTracker({ failure, retry: report.retry }, TUNNEL_TAGS.proxy);
  // A carried server's failures are the carrier's to report: the main core sees only its loopback hop.
  if (!carried) core.onLine((line) => tracker.line(line));
  if (share) core.onLine((line) => isRefusedLogin(line) && report.loginRefused());
  core.onExit((exit) => report.exit(core, exit));
  session.stats = new StatsClient(`127.0.0.1:${apiPort}`, options.core.family === 'xray' ? 'xray' : 'v2ray');
  session.meter = new TrafficMeter({
    source: session.stats,
    clock,
    intervalMs: options.statsIntervalMs ?? DEFAULT_TRAFFIC_INTERVAL_MS,
    outboundTag: TUNNEL_TAGS.proxy,
    directTag: routing ? TUNNEL_TAGS.direct : undefined,
    userInboundTags: userInboundTags({ share: !!share, transparent: !!(transparent && hasTransparentInbounds(transparent)) }),
    // A group's bytes enter the same inbounds: the meter keeps them apart from the main connection's.
    groups: () => start.groups.map((g) => ({ name: g.name, tags: [groupTag(g.name), groupDialTag(g.name)] })),
    onSample: report.traffic,
    onError: (message) => logger.debug(TAG, `traffic counters unavailable: ${message}`),
  });
  session.meter.start();
  return core.startMs;
}

/** The server's options the chosen core will not apply are said before it connects without them. */
function warnOfWhatIsNotApplied(session: Session, options: CoreStartOptions, carried: CoreProfile | null, antiDpi: AntiDpiOptions | null, throughMain: CarriedAntiDpi | null): void {
  const { logger } = options;
  if (throughMain) {
    for (const why of throughMain.notApplied) logger.warn(TAG, `${session.server.name}: ${why}; connecting without it`);
    if (throughMain.written) logger.info(TAG, `${session.server.name}: the anti-DPI options are applied by ${coreLabel(options.core)} on ${coreLabel(carried!)}'s connection to the server`);
  } else {
    const unavailable = antiDpiActive(antiDpi) ? antiDpiUnavailable(antiDpi, options.core, session.via ?? session.server) : null;
    if (unavailable) logger.warn(TAG, `${session.server.name}: ${unavailable}; connecting without it`);
  }
  const certificate = certificateNotApplied(session.server, carried ?? options.core);
  if (certificate) logger.warn(TAG, `${session.server.name}: ${certificate}`);
}

/** Starts the carrier with the session's server behind a loopback SOCKS5 inbound on `dial.port`. */
async function startCarrier(session: Session, start: SessionStart, carrier: CoreProfile, dial: { port: number; mark?: number; antiDpi?: { port: number; udp: boolean } }): Promise<void> {
  const { options, report } = start;
  const { port } = dial;
  session.carrierPort = port;
  const config = singBoxCarrierConfig({ server: session.server, via: session.via, core: carrier, port, routingMark: dial.mark, ...(dial.antiDpi ? { antiDpi: dial.antiDpi } : {}), logLevel: 'info' });
  session.carrierFile = await writeConfigFile(options.runtimeDir, 'carrier', config);
  const carrierProcess = await CoreProcess.start({
    core: carrier,
    configPath: session.carrierFile,
    readyPort: port,
    readyTimeoutMs: options.readyTimeoutMs,
    logger: options.logger,
    logTag: TAG,
    label: `carrier core (${coreLabel(carrier)})`,
  });
  session.carrier = carrierProcess;
  const tracker = new OutboundFailureTracker({ failure: report.failure }, TUNNEL_TAGS.proxy);
  carrierProcess.onLine((line) => tracker.line(line));
  carrierProcess.onExit((exit) => report.exit(carrierProcess, exit));
}

/**
 * Starts the carrier of a group's carried pick on `port` and records it as the group's; never
 * rejects (one that cannot start keeps trying, and the group's traffic fails meanwhile).
 */
export async function startGroupCarrier(session: Session, start: Pick<SessionStart, 'options' | 'clock' | 'report'>, group: GroupRoute, port: number): Promise<GroupCarrier> {
  const { options, clock, report } = start;
  return GroupCarrier.start({
    group: group.name,
    pick: group.pick!,
    core: groupPickCarrier(group, options.core, options.carriers ?? [])!,
    port,
    routingMark: session.routingMark,
    runtimeDir: options.runtimeDir,
    logger: options.logger,
    clock,
    readyTimeoutMs: options.readyTimeoutMs,
    failure: report.failure,
  });
}

/** Stops every group carrier of the session (the tunnel closing, or its cores starting again). */
export async function stopGroupCarriers(session: Session): Promise<void> {
  const carriers = [...session.groupCarriers.values()];
  session.groupCarriers.clear();
  await Promise.all(carriers.map((c) => c.stop()));
}

export async function stopCarrier(session: Session): Promise<void> {
  const carrier = session.carrier;
  session.carrier = null;
  if (carrier) await carrier.stop();
  if (session.carrierFile) await rm(session.carrierFile, { force: true }).catch(() => undefined);
}

export function stopMeter(session: Session): void {
  session.meter?.stop();
  session.meter = null;
  session.stats?.close();
  session.stats = null;
}

/** The sharing address must still be this machine's (a laptop moves between networks). */
async function assertShareable(port: number, address: string, purpose: string): Promise<void> {
  try {
    await assertPortFree(port, address, purpose);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EADDRNOTAVAIL') throw error;
    throw new Error(`household sharing: ${address} is not an address of this machine now; pick another in Settings → Sharing`);
  }
}
