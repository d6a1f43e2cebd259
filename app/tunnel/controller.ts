/**
 * The tunnel: one core carrying the user's traffic through one server, with a local HTTP and a
 * SOCKS5 inbound and its stats API on loopback. `connect`, `switch` (a restart: v2ray starts in
 * tens of milliseconds) and `disconnect` run one at a time. A core that dies is restarted with
 * back-off (policy/restart-backoff.ts). Lower layers publish, never call up: Auto listens to
 * `state`, `traffic`, `dialFailure`, `coreExit` and `restarted`.
 *
 * A server the main core cannot run but a carrier (sing-box) can is carried: the carrier runs
 * it behind a SOCKS5 inbound on loopback, and the main core's `proxy` outbound dials that inbound,
 * so routing, DNS, counters and system-wide capture stay the main core's. Both start, stop and
 * restart together; the carrier's log gives the server's dial failures (the main core only sees
 * its loopback hop), reported as the main core's are.
 */
import { antiDpiActive, type AntiDpiOptions, antiDpiUnavailable } from '../core/anti-dpi';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { ConnectionState, TrafficSample } from '../../shared/domain/connection';
import type { Server, ServerId } from '../../shared/domain/server';
import { type Clock, systemClock, type TimerHandle } from '../clock';
import {
  type CarrierChoice,
  certificateNotApplied,
  chooseCarrier,
  coreLabel,
  type CoreProfile,
  type CoreRouting,
  type GroupRoute,
  groupDialTag,
  groupOutboundsOf,
  groupTag,
  groupTags,
  isRefusedLogin,
  SHARE_TAGS,
  type ShareInbounds,
  singBoxCarrierConfig,
  TRANSPARENT_TAGS,
  type TransparentOptions,
  TUNNEL_TAGS,
  tunnelConfig,
  writeConfigFile,
  XrayOutboundSwap,
} from '../core';
import type { Logger } from '../log/logger';
import { SerialQueue } from '../process/serial-queue';
import { secretsOf } from '../../shared/domain/secrets';
import type { OutboundFailureKind } from './core-log';
import { type CoreExit, CoreProcess } from './core-process';
import { Emitter } from '../events';
import { type AttributedFailure, type DialRetry, OutboundFailureTracker } from './outbound-failures';
import { coreStarted, FRESH_HISTORY, restartAfterExit, type RestartHistory, RESTART_DELAYS_MS, STABLE_RUN_MS } from './policy/restart-backoff';
import { assertPortFree, dialableHost, freePort } from './ports';
import { StatsClient } from './stats-client';
import { DEFAULT_TRAFFIC_INTERVAL_MS, TrafficMeter } from './traffic-meter';

export interface DialFailureEvent {
  at: number;
  serverId: ServerId;
  kind: OutboundFailureKind;
  /** The address the core names (host:port), when it names one. */
  address: string | null;
  /** Where the failed session was going (host:port), when the core's route line said. */
  destination: string | null;
  /** The core's words, shortened and redacted. */
  detail: string;
  /** The failing hop was the upstream of a chained server. */
  upstream: boolean;
}

/** A dial through a server group's pick failed: the group's failure, never the main connection's. */
export interface GroupDialFailureEvent {
  at: number;
  group: string;
  /** The group's pick when it failed. */
  serverId: ServerId;
  kind: OutboundFailureKind;
  detail: string;
}

export interface DialRetryEvent {
  at: number;
  serverId: ServerId;
  address: string;
  attempt: number;
}

export interface CoreExitEvent {
  at: number;
  serverId: ServerId;
  description: string;
  attempt: number;
  restartInMs: number;
}

export interface RestartedEvent {
  at: number;
  serverId: ServerId;
  attempt: number;
  /** From the exit to the new core accepting connections. */
  downMs: number;
  startMs: number;
}

export interface TunnelEvents {
  state: ConnectionState;
  traffic: TrafficSample;
  dialFailure: DialFailureEvent;
  groupDialFailure: GroupDialFailureEvent;
  /** The earliest sign of a failing dial: the core retries it (~0.2 s in; the verdict follows at ~2 s). */
  dialRetrying: DialRetryEvent;
  coreExit: CoreExitEvent;
  restarted: RestartedEvent;
  /** A LAN device's login to the shared proxies was refused (SOCKS5; the core logs no HTTP refusal). */
  loginRefused: { at: number };
}

export interface TunnelPorts {
  httpPort: number;
  socksPort: number;
  /** Loopback: these proxies have no password. */
  listen?: string;
  /** Household sharing: the same proxies on a private LAN address, behind a password (null: off). */
  share?: ShareInbounds | null;
}

export interface TunnelControllerOptions extends TunnelPorts {
  core: CoreProfile;
  /** Cores that carry what `core` cannot (sing-box), as a second process it dials on loopback. */
  carriers?: readonly CoreProfile[];
  /** Where the 0600 config file is written (the app data folder's runtime directory). */
  runtimeDir: string;
  logger: Logger;
  clock?: Clock;
  statsIntervalMs?: number;
  readyTimeoutMs?: number;
  restartDelaysMs?: readonly number[];
  stableRunMs?: number;
  /**
   * Asked before every core start, with the server it is for (its IPv6 decides whether captured
   * IPv6 goes to it): the transparent inbound of system-wide mode, or null. It may throw (no
   * administrator rights): the connection then fails with its words.
   */
  transparent?: (server: Server) => Promise<TransparentOptions | null>;
  /** Routing and DNS for the tunnel's core; absent = everything through the server. */
  routing?: CoreRouting;
  /** The server's anti-DPI options, asked at every core start; written only where the core has them. */
  antiDpi?: (serverId: ServerId) => AntiDpiOptions | null;
  /** Server groups routing rules send traffic through, each on its pick beside the server. */
  groups?: readonly GroupRoute[];
}

/** How a group switch reached the core: swapped in the running core, by a restart, or kept for the next start. */
export type GroupSwitchWay = 'live' | 'restart' | 'next-start';

const TAG = 'TUNNEL';

/** The sharing address must still be this machine's (a laptop moves between networks). */
async function assertShareable(port: number, address: string, purpose: string): Promise<void> {
  try {
    await assertPortFree(port, address, purpose);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EADDRNOTAVAIL') throw error;
    throw new Error(`household sharing: ${address} is not an address of this machine now; pick another in Settings → Sharing`);
  }
}

interface Session {
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
}

export class TunnelController {
  private readonly emitter: Emitter<TunnelEvents>;
  private readonly clock: Clock;
  private ports: Required<TunnelPorts>;
  private current: ConnectionState;
  private session: Session | null = null;
  /** connect, switch, disconnect, routing changes and restarts: one at a time, in call order. */
  private readonly operations = new SerialQueue();
  private routing: CoreRouting | undefined;
  private groups: readonly GroupRoute[];
  /** Milliseconds the last core took from spawn to accepting connections. */
  lastStartMs = Number.NaN;

  constructor(private readonly options: TunnelControllerOptions) {
    this.clock = options.clock ?? systemClock;
    this.ports = { httpPort: options.httpPort, socksPort: options.socksPort, listen: options.listen ?? '127.0.0.1', share: options.share ?? null };
    this.routing = options.routing;
    this.groups = options.groups ?? [];
    this.emitter = new Emitter((error, event) => options.logger.error(TAG, `a ${String(event)} listener failed: ${String(error)}`));
    this.current = this.makeState('disconnected', null, null);
  }

  on<K extends keyof TunnelEvents>(event: K, listener: (payload: TunnelEvents[K]) => void): () => void {
    return this.emitter.on(event, listener);
  }

  state(): ConnectionState {
    return this.current;
  }

  /** Takes effect at the next connect or switch. */
  setPorts(ports: TunnelPorts): void {
    this.ports = { httpPort: ports.httpPort, socksPort: ports.socksPort, listen: ports.listen ?? this.ports.listen, share: ports.share === undefined ? this.ports.share : ports.share };
  }

  /**
   * New routing for the tunnel. v2ray 4 cannot change its routing while it runs, so a connected
   * tunnel restarts its core on the same server (tens of milliseconds; open connections drop).
   * A routing the core refuses to start with is undone: the tunnel comes back as it was, and the error is thrown.
   * Resolves true when the core was restarted.
   */
  setRouting(routing: CoreRouting | undefined): Promise<boolean> {
    return this.operations.run(async () => {
      const previous = this.routing;
      this.routing = routing;
      const session = this.session;
      if (!session || !session.core || this.current.state !== 'connected') return false;
      try {
        await this.open(session.server, session.via);
      } catch (error) {
        // Back to the routing that worked, on the same server.
        this.routing = previous;
        await this.open(session.server, session.via).catch(() => undefined);
        throw error;
      }
      return true;
    });
  }

  /**
   * The groups (their names and picks) for the tunnel's core: a connected tunnel restarts on the
   * same server when the set of groups changed, as a routing change does. Resolves true when it did.
   */
  setGroups(groups: readonly GroupRoute[]): Promise<boolean> {
    return this.operations.run(async () => {
      this.groups = groups;
      const session = this.session;
      if (!session || !session.core || this.current.state !== 'connected') return false;
      await this.open(session.server, session.via);
      return true;
    });
  }

  /**
   * Moves one group to another pick (or none). Xray swaps the group's outbound in the running
   * core (HandlerService: the old handlers removed, the new added under the same tags), so the
   * main connection and every other group never notice; a core without that API restarts on the
   * same server, as a switch does today. The group must be one of `setGroups`'.
   */
  switchGroup(name: string, pick: GroupRoute['pick']): Promise<GroupSwitchWay> {
    return this.operations.run(async () => {
      if (!this.groups.some((g) => g.name === name)) throw new Error(`there is no group "${name}" in the tunnel`);
      this.groups = this.groups.map((g) => (g.name === name ? { name, pick } : g));
      if (pick) this.options.logger.redactor.add(...secretsOf(pick.server), ...(pick.via ? secretsOf(pick.via) : []));
      const session = this.session;
      if (!session || !session.core || this.current.state !== 'connected') return 'next-start';
      const live = this.options.core.family === 'xray' && session.apiPort !== undefined;
      if (live) {
        const swap = new XrayOutboundSwap({ corePath: this.options.core.path, apiAddress: `127.0.0.1:${session.apiPort}`, runtimeDir: this.options.runtimeDir });
        try {
          await swap.replace(groupTags(name), groupOutboundsOf({ name, pick }, this.options.core));
          this.options.logger.info(TAG, `group ${name}: on ${pick ? pick.server.name : 'no server'} (swapped in the running core)`);
          return 'live';
        } catch (error) {
          this.options.logger.warn(TAG, `group ${name}: the live swap failed (${String(error)}); restarting the core on the same server`);
        }
      }
      await this.open(session.server, session.via);
      this.options.logger.info(TAG, `group ${name}: on ${pick ? pick.server.name : 'no server'} (core restarted)`);
      return 'restart';
    });
  }

  /** Connects through `server` (via its upstream when chained); replaces any current tunnel. */
  connect(server: Server, via?: Server): Promise<ConnectionState> {
    return this.operations.run(() => this.open(server, via));
  }

  /** The same as connect while connected: the core is restarted with the new server. */
  switch(server: Server, via?: Server): Promise<ConnectionState> {
    return this.connect(server, via);
  }

  disconnect(): Promise<void> {
    return this.operations.run(async () => {
      await this.close();
      this.setState('disconnected', null, null);
    });
  }

  private async open(server: Server, via?: Server): Promise<ConnectionState> {
    const previous = this.session?.server.id ?? null;
    await this.close();
    this.options.logger.redactor.add(...secretsOf(server), ...(via ? secretsOf(via) : []));
    const choice = chooseCarrier(server, via, this.options.core, this.options.carriers ?? []);
    const session: Session = {
      server,
      via,
      choice: choice.kind === 'unsupported' ? { kind: 'main', core: this.options.core } : choice,
      core: null,
      carrier: null,
      stopping: null,
      meter: null,
      stats: null,
      restartTimer: null,
      history: FRESH_HISTORY,
      exitedAt: null,
    };
    this.session = session;
    this.setState('connecting', server.id, null);
    if (choice.kind === 'unsupported') return this.fail(session, choice.reason);
    if (choice.kind === 'carried') this.options.logger.info(TAG, `${server.name}: ${choice.note}`);
    try {
      await this.startCore(session);
    } catch (error) {
      return this.fail(session, error instanceof Error ? error.message : String(error));
    }
    const verb = previous && previous !== server.id ? 'switched to' : 'connected to';
    this.options.logger.info(TAG, `${verb} ${server.name} (${server.protocol}) in ${this.lastStartMs} ms: ${this.current.httpProxy} ${this.current.socksProxy}`);
    return this.current;
  }

  private fail(session: Session, message: string): never {
    if (this.session === session) this.session = null;
    this.setState('failed', session.server.id, message);
    this.options.logger.warn(TAG, `cannot connect to ${session.server.name}: ${message}`);
    throw new Error(message);
  }

  /** Writes the config, starts the core (and its carrier) and its traffic meter; the state becomes connected. */
  private async startCore(session: Session): Promise<void> {
    try {
      await this.startPair(session);
    } catch (error) {
      // A carrier must not outlive a main core that did not come up.
      await this.stopCarrier(session);
      throw error;
    }
  }

  private async startPair(session: Session): Promise<void> {
    const { listen, httpPort, socksPort, share } = this.ports;
    await assertPortFree(httpPort, listen, 'HTTP proxy');
    await assertPortFree(socksPort, listen, 'SOCKS5 proxy');
    if (share) {
      this.options.logger.redactor.add(share.password);
      await assertShareable(share.httpPort, share.address, 'shared HTTP proxy');
      await assertShareable(share.socksPort, share.address, 'shared SOCKS5 proxy');
    }
    const transparent = (await this.options.transparent?.(session.server)) ?? undefined;
    const apiPort = await freePort();
    const carried = session.choice.kind === 'carried' ? session.choice.core : null;
    const antiDpi = carried ? null : (this.options.antiDpi?.(session.server.id) ?? null);
    if (carried && antiDpiActive(this.options.antiDpi?.(session.server.id) ?? null)) {
      this.options.logger.warn(TAG, `${session.server.name}: the anti-DPI options are not applied to a server ${coreLabel(carried)} carries; connecting without them`);
    }
    const unavailable = antiDpiActive(antiDpi) ? antiDpiUnavailable(antiDpi, this.options.core, session.via ?? session.server) : null;
    if (unavailable) this.options.logger.warn(TAG, `${session.server.name}: ${unavailable}; connecting without it`);
    const certificate = certificateNotApplied(session.server, carried ?? this.options.core);
    if (certificate) this.options.logger.warn(TAG, `${session.server.name}: ${certificate}`);
    // A carried server: the carrier first, then the main core with a SOCKS5 hop to it in the server's place.
    const hop = carried ? await this.startCarrier(session, carried, transparent?.mark) : null;
    const config = tunnelConfig({
      antiDpi,
      server: hop ?? session.server,
      via: hop ? undefined : session.via,
      core: this.options.core,
      listen,
      httpPort,
      socksPort,
      apiPort,
      transparent,
      ...(share ? { share } : {}),
      // info, not warning: a server that resets or closes the connection is logged only at info.
      logLevel: 'info',
      routing: this.routing,
      groups: this.groups,
    });
    // The access log would name every site the user visits; nothing here needs it.
    (config.log as Record<string, unknown>).access = 'none';
    const file = await writeConfigFile(this.options.runtimeDir, 'tunnel', config);
    session.configFile = file;
    session.apiPort = apiPort;
    const core = await CoreProcess.start({
      core: this.options.core,
      configPath: file,
      readyPort: httpPort,
      readyHost: dialableHost(listen),
      readyTimeoutMs: this.options.readyTimeoutMs,
      logger: this.options.logger,
      logTag: TAG,
      label: 'tunnel core',
      assetDir: this.routing?.assetDir,
    });
    if (this.session !== session) {
      await core.stop();
      throw new Error('the connection was replaced while it started');
    }
    this.lastStartMs = core.startMs;
    session.core = core;
    session.history = coreStarted(session.history, this.clock.now());
    const tracker = new OutboundFailureTracker(
      { failure: (f) => this.onFailure(session, f), retry: (r) => this.onRetry(session, r) },
      TUNNEL_TAGS.proxy,
    );
    // A carried server's failures are the carrier's to report: the main core sees only its loopback hop.
    if (!carried) core.onLine((line) => tracker.line(line));
    if (share) core.onLine((line) => isRefusedLogin(line) && this.emitter.emit('loginRefused', { at: this.clock.now() }));
    core.onExit((exit) => this.onCoreExit(session, core, exit));
    session.stats = new StatsClient(`127.0.0.1:${apiPort}`, this.options.core.family === 'xray' ? 'xray' : 'v2ray');
    session.meter = new TrafficMeter({
      source: session.stats,
      clock: this.clock,
      intervalMs: this.options.statsIntervalMs ?? DEFAULT_TRAFFIC_INTERVAL_MS,
      outboundTag: TUNNEL_TAGS.proxy,
      directTag: this.routing ? TUNNEL_TAGS.direct : undefined,
      userInboundTags: [TUNNEL_TAGS.httpIn, TUNNEL_TAGS.socksIn, ...(share ? [SHARE_TAGS.httpIn, SHARE_TAGS.socksIn] : []), ...(transparent ? [TRANSPARENT_TAGS.ipv4, TRANSPARENT_TAGS.ipv6] : [])],
      groups: () => this.groups.map((g) => ({ name: g.name, tags: [groupTag(g.name), groupDialTag(g.name)] })),
      onSample: (sample) => this.emitter.emit('traffic', sample),
      onError: (message) => this.options.logger.debug(TAG, `traffic counters unavailable: ${message}`),
    });
    session.meter.start();
    this.setState('connected', session.server.id, null);
  }

  /**
   * Starts the carrier with the session's server behind a loopback SOCKS5 inbound; resolves with
   * the stand-in the main core dials in the server's place.
   */
  private async startCarrier(session: Session, carrier: CoreProfile, mark: number | undefined): Promise<Server> {
    const port = await freePort();
    const config = singBoxCarrierConfig({ server: session.server, via: session.via, core: carrier, port, routingMark: mark, logLevel: 'info' });
    session.carrierFile = await writeConfigFile(this.options.runtimeDir, 'carrier', config);
    const carrierProcess = await CoreProcess.start({
      core: carrier,
      configPath: session.carrierFile,
      readyPort: port,
      readyTimeoutMs: this.options.readyTimeoutMs,
      logger: this.options.logger,
      logTag: TAG,
      label: `carrier core (${coreLabel(carrier)})`,
    });
    session.carrier = carrierProcess;
    const tracker = new OutboundFailureTracker({ failure: (f) => this.onFailure(session, f) }, TUNNEL_TAGS.proxy);
    carrierProcess.onLine((line) => tracker.line(line));
    carrierProcess.onExit((exit) => this.onCoreExit(session, carrierProcess, exit));
    const { id, subscriptionId, name } = session.server;
    return { id, subscriptionId, name, protocol: 'socks', address: '127.0.0.1', port, transport: { network: 'tcp' }, security: { type: 'none' } };
  }

  private async stopCarrier(session: Session): Promise<void> {
    const carrier = session.carrier;
    session.carrier = null;
    if (carrier) await carrier.stop();
    if (session.carrierFile) await rm(session.carrierFile, { force: true }).catch(() => undefined);
  }

  /** Stops the current session's core, meter and pending restart. */
  private async close(): Promise<void> {
    const session = this.session;
    if (!session) return;
    this.session = null;
    session.restartTimer?.cancel();
    this.stopMeter(session);
    if (session.core) await session.core.stop();
    await this.stopCarrier(session);
    await session.stopping;
    await rm(session.configFile ?? join(this.options.runtimeDir, 'tunnel.json'), { force: true }).catch(() => undefined);
  }

  private stopMeter(session: Session): void {
    session.meter?.stop();
    session.meter = null;
    session.stats?.close();
    session.stats = null;
  }

  private onCoreExit(session: Session, core: CoreProcess, exit: CoreExit): void {
    if (exit.expected || this.session !== session || (session.core !== core && session.carrier !== core)) return;
    // The pair starts again together: the one still running is stopped (before the restart reuses its ports).
    const lostCarrier = session.carrier === core;
    const other = lostCarrier ? session.core : session.carrier;
    session.core = null;
    session.carrier = null;
    session.stopping = other ? other.stop() : null;
    this.stopMeter(session);
    this.scheduleRestart(session, lostCarrier ? `stopped: its carrier core ${exit.description}` : exit.description);
  }

  private scheduleRestart(session: Session, why: string): void {
    const now = this.clock.now();
    session.exitedAt ??= now;
    const next = restartAfterExit(session.history, now, this.options.restartDelaysMs ?? RESTART_DELAYS_MS, this.options.stableRunMs ?? STABLE_RUN_MS);
    session.history = next.history;
    const message = `tunnel core ${why}; restart ${next.attempt} in ${next.delayMs} ms`;
    this.options.logger.warn(TAG, message);
    this.setState('reconnecting', session.server.id, message);
    this.emitter.emit('coreExit', { at: now, serverId: session.server.id, description: why, attempt: next.attempt, restartInMs: next.delayMs });
    session.restartTimer = this.clock.after(next.delayMs, () => {
      session.restartTimer = null;
      void this.operations.run(() => this.restart(session, next.attempt));
    });
  }

  private async restart(session: Session, attempt: number): Promise<void> {
    if (this.session !== session || session.core) return;
    await session.stopping;
    session.stopping = null;
    try {
      await this.startCore(session);
    } catch (error) {
      if (this.session !== session) return;
      this.scheduleRestart(session, `could not be restarted (${error instanceof Error ? error.message : String(error)})`);
      return;
    }
    const now = this.clock.now();
    const downMs = now - (session.exitedAt ?? now);
    session.exitedAt = null;
    this.options.logger.info(TAG, `tunnel core restarted (attempt ${attempt}) after ${downMs} ms down; start took ${this.lastStartMs} ms`);
    this.emitter.emit('restarted', { at: now, serverId: session.server.id, attempt, downMs, startMs: this.lastStartMs });
  }

  private onFailure(session: Session, failure: AttributedFailure): void {
    if (this.session !== session) return;
    if (this.onGroupFailure(failure)) return;
    const upstream = this.isUpstream(session, failure.outboundTag, failure.address);
    if (upstream === null) return;
    const event: DialFailureEvent = {
      at: this.clock.now(),
      serverId: session.server.id,
      kind: failure.kind,
      address: failure.address,
      destination: failure.destination,
      detail: this.options.logger.redactor.apply(failure.detail),
      upstream,
    };
    this.options.logger.info(TAG, `dial failure (${event.kind}) of ${session.server.name}${upstream ? ' (its upstream)' : ''}: ${event.detail}`);
    this.emitter.emit('dialFailure', event);
  }

  /** A failure on a group's outbounds goes to that group; true when it was one. */
  private onGroupFailure(failure: AttributedFailure): boolean {
    const group = this.groups.find((g) => failure.outboundTag !== null && groupTags(g.name).includes(failure.outboundTag));
    if (!group) return false;
    if (group.pick) {
      const detail = this.options.logger.redactor.apply(failure.detail);
      this.options.logger.info(TAG, `dial failure (${failure.kind}) of the group ${group.name}'s ${group.pick.server.name}: ${detail}`);
      this.emitter.emit('groupDialFailure', { at: this.clock.now(), group: group.name, serverId: group.pick.server.id, kind: failure.kind, detail });
    }
    return true;
  }

  private onRetry(session: Session, retry: DialRetry): void {
    if (this.session !== session || retry.attempt !== 2) return;
    if (this.isUpstream(session, retry.outboundTag, retry.address) === null) return;
    this.emitter.emit('dialRetrying', { at: this.clock.now(), serverId: session.server.id, address: retry.address, attempt: retry.attempt });
  }

  /** false = the server itself, true = its upstream, null = another outbound (not ours to report). */
  private isUpstream(session: Session, tag: string | null, address: string | null): boolean | null {
    if (tag === TUNNEL_TAGS.proxy) return false;
    if (tag === TUNNEL_TAGS.via) return true;
    if (tag !== null || address === null) return null;
    if (sameEndpoint(address, session.server)) return false;
    if (session.via && sameEndpoint(address, session.via)) return true;
    return null;
  }

  private setState(state: ConnectionState['state'], serverId: ServerId | null, error: string | null): void {
    this.current = this.makeState(state, serverId, error);
    this.emitter.emit('state', this.current);
  }

  private makeState(state: ConnectionState['state'], serverId: ServerId | null, error: string | null): ConnectionState {
    const host = dialableHost(this.ports.listen);
    const shown = host.includes(':') ? `[${host}]` : host;
    const up = state === 'connected';
    const { family, version, path } = this.options.core;
    return {
      state,
      serverId,
      httpProxy: up ? `http://${shown}:${this.ports.httpPort}` : null,
      socksProxy: up ? `socks5://${shown}:${this.ports.socksPort}` : null,
      since: this.clock.now(),
      error: error === null ? null : this.options.logger.redactor.apply(error),
      core: { family, version, path },
    };
  }
}

function sameEndpoint(address: string, server: Server): boolean {
  const bare = address.replace(/^\[|\](?=:\d+$)/g, '');
  return bare === `${server.address}:${server.port}` || bare === server.address;
}
