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
 * its loopback hop), reported as the main core's are. A group's carried pick has a carrier of its
 * own (./group-carrier.ts), apart from that pair: a switch starts the next one before the swap
 * and stops the old one after, and one that dies is restarted alone, the main core untouched.
 *
 * This file decides when cores start and stop (connect, switch, a routing or group change, a
 * restart after an exit) and what is published; how a connection's cores come up is
 * ./session-start.ts, which hop a failure line is about ./failing-hop.ts, the events ./events.ts.
 */
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { ConnectionState } from '../../shared/domain/connection';
import type { Server, ServerId } from '../../shared/domain/server';
import { type Clock, systemClock } from '../clock';
import { chooseCarrier, ConvertedOutbounds, type CoreRouting, type GroupRoute, groupOutboundsOf, groupPickCarrier, groupRouteInCore, groupTags, XrayOutboundSwap } from '../core';
import { SerialQueue } from '../process/serial-queue';
import { secretsOf } from '../../shared/domain/secrets';
import type { CoreExit, CoreProcess } from './core-process';
import { Emitter } from '../events';
import type { DialFailureEvent, TunnelEvents } from './events';
import { failingHop } from './failing-hop';
import type { AttributedFailure, DialRetry } from './outbound-failures';
import { restartAfterExit, RESTART_DELAYS_MS, STABLE_RUN_MS } from './policy/restart-backoff';
import type { GroupCarrier } from './group-carrier';
import { dialableHost, freePorts } from './ports';
import { type CoreStartOptions, newSession, type Session, type SessionStart, startGroupCarrier, startSession, stopCarrier, stopGroupCarriers, stopMeter, type TunnelPorts } from './session-start';

export type { CoreExitEvent, DialFailureEvent, DialRetryEvent, GroupDialFailureEvent, RestartedEvent, TunnelEvents } from './events';
export type { TunnelPorts } from './session-start';

export interface TunnelControllerOptions extends TunnelPorts, CoreStartOptions {
  clock?: Clock;
  restartDelaysMs?: readonly number[];
  stableRunMs?: number;
  /** Routing and DNS for the tunnel's core; absent = everything through the server. */
  routing?: CoreRouting;
  /** Server groups routing rules send traffic through, each on its pick beside the server. */
  groups?: readonly GroupRoute[];
}

/** How a group switch reached the core: swapped in the running core, by a restart, or kept for the next start. */
export type GroupSwitchWay = 'live' | 'restart' | 'next-start';

const TAG = 'TUNNEL';

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
  /** The groups' outbounds as the core converted them: a pick returned to is swapped without starting a process. */
  private readonly convertedOutbounds = new ConvertedOutbounds();
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
   * same server, as a switch does today. The group must be one of `setGroups`'. A pick only a
   * carrier runs is swapped in as the SOCKS5 hop to a carrier of its own, started first.
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
        const swap = new XrayOutboundSwap({ corePath: this.options.core.path, apiAddress: `127.0.0.1:${session.apiPort}`, runtimeDir: this.options.runtimeDir, converted: this.convertedOutbounds });
        // A carried pick's carrier is up before the group's outbound points at it; the old pick's
        // carrier stops only after the swap, so the group is never on a hop nothing listens on.
        const next = await this.groupCarrierFor(session, { name, pick });
        try {
          await swap.replace(groupTags(name), groupOutboundsOf(groupRouteInCore({ name, pick }, next?.port), this.options.core));
        } catch (error) {
          await next?.stop();
          this.options.logger.warn(TAG, `group ${name}: the live swap failed (${String(error)}); restarting the core on the same server`);
          return this.restartForGroup(session, name, pick);
        }
        const previous = session.groupCarriers.get(name);
        if (next) session.groupCarriers.set(name, next);
        else session.groupCarriers.delete(name);
        await previous?.stop();
        this.options.logger.info(TAG, `group ${name}: on ${pick ? pick.server.name : 'no server'} (swapped in the running core${next ? ', carried' : ''})`);
        return 'live';
      }
      return this.restartForGroup(session, name, pick);
    });
  }

  private async restartForGroup(session: Session, name: string, pick: GroupRoute['pick']): Promise<GroupSwitchWay> {
    await this.open(session.server, session.via);
    this.options.logger.info(TAG, `group ${name}: on ${pick ? pick.server.name : 'no server'} (core restarted)`);
    return 'restart';
  }

  /** A carrier for the group's pick when only a carrier runs it (started, on a fresh port), else null. */
  private async groupCarrierFor(session: Session, group: GroupRoute): Promise<GroupCarrier | null> {
    if (!groupPickCarrier(group, this.options.core, this.options.carriers ?? [])) return null;
    const [port] = (await freePorts(1)) as [number];
    return startGroupCarrier(session, { options: this.options, clock: this.clock, report: this.reports(session) }, group, port);
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
    const session = newSession(server, via, choice.kind === 'unsupported' ? { kind: 'main', core: this.options.core } : choice);
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

  /** Starts the session's cores (session-start.ts); the state becomes connected. */
  private async startCore(session: Session): Promise<void> {
    this.lastStartMs = await startSession(session, {
      options: this.options,
      ports: this.ports,
      routing: this.routing,
      groups: this.groups,
      clock: this.clock,
      isCurrent: () => this.session === session,
      report: this.reports(session),
    });
    this.setState('connected', session.server.id, null);
  }

  /** Where the session's cores (and its groups' carriers) report. */
  private reports(session: Session): SessionStart['report'] {
    return {
      failure: (failure) => this.onFailure(session, failure),
      retry: (retry) => this.onRetry(session, retry),
      loginRefused: () => this.emitter.emit('loginRefused', { at: this.clock.now() }),
      exit: (core, exit) => this.onCoreExit(session, core, exit),
      traffic: (sample) => this.emitter.emit('traffic', sample),
    };
  }

  /** Stops the current session's core, meter and pending restart. */
  private async close(): Promise<void> {
    const session = this.session;
    if (!session) return;
    this.session = null;
    session.restartTimer?.cancel();
    stopMeter(session);
    // Both at once: a switch waits for the slower stop, not both in turn.
    await Promise.all([session.core?.stop(), stopCarrier(session), stopGroupCarriers(session)]);
    await session.stopping;
    await rm(session.configFile ?? join(this.options.runtimeDir, 'tunnel.json'), { force: true }).catch(() => undefined);
  }

  private onCoreExit(session: Session, core: CoreProcess, exit: CoreExit): void {
    if (exit.expected || this.session !== session || (session.core !== core && session.carrier !== core)) return;
    // The pair starts again together: the one still running is stopped (before the restart reuses its ports).
    const lostCarrier = session.carrier === core;
    const other = lostCarrier ? session.core : session.carrier;
    session.core = null;
    session.carrier = null;
    session.stopping = other ? other.stop() : null;
    stopMeter(session);
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
    const upstream = failingHop(failure.outboundTag, failure.address, session.server, session.via);
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
    if (failingHop(retry.outboundTag, retry.address, session.server, session.via) === null) return;
    this.emitter.emit('dialRetrying', { at: this.clock.now(), serverId: session.server.id, address: retry.address, attempt: retry.attempt });
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
