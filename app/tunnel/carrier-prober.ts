/**
 * The prober beside a carrier: each server is probed by the core that will carry it. The main
 * core's prober hosts what the main core runs; a sing-box prober hosts what sing-box carries
 * (one inbound per server, as the main one); a server neither runs is reported by the main prober
 * with both cores' reasons. The monitor sees one ServerProber.
 *
 * A carried server's anti-DPI options are applied as the tunnel applies them (probe-anti-dpi.ts):
 * the main prober's core hosts a relay for it, and the carrier's prober dials its first hop
 * through that relay. The carrier's probers follow the main one: they are given the servers once
 * the main prober's core (and its relays' ports) is up, again whenever it is rebuilt, and each of
 * their cores keeps the main core it dials through running until it stops.
 */
import type { ProbeOutcome } from '../../shared/domain/measurement';
import type { Server, ServerId } from '../../shared/domain/server';
import { chooseCarrier, type CoreProfile, type ProbeRelayInput, probeRelays } from '../core';
import type { DownloadRequest, FetchThroughRequest, FetchThroughResult, ProbeRequest, Readiness, ServerProber, TransferCourse } from './probe-contract';
import { CoreProber, type CoreProberOptions, type ProberEvents } from './prober';
import { tcpPing } from './tcp-ping';

export class CarrierProber implements ServerProber {
  readonly main: CoreProber;
  private readonly carried: { core: CoreProfile; prober: CoreProber }[];
  /** Which carrier's prober hosts a server (absent: the main one). */
  private readonly route = new Map<ServerId, CoreProber>();
  private servers: readonly Server[] | null = null;
  /** The list the carriers' probers were last given (behind `servers` while the main prober builds). */
  private followed: readonly Server[] | null = null;
  /** The main prober's relays: the carried servers the anti-DPI options apply to. */
  private relays: readonly ProbeRelayInput[] = [];
  /** What of the options is not applied, as last logged: each note once, not per probe or rebuild. */
  private said = new Set<string>();
  /** The carriers' probers are given the servers after the main prober has built its relays. */
  private following: Promise<void> = Promise.resolve();

  constructor(options: CoreProberOptions & { carriers: readonly CoreProfile[] }) {
    const { carriers, ...mainOptions } = options;
    const main = mainOptions.core;
    this.main = new CoreProber({
      ...mainOptions,
      cannotHost: (server, via) => {
        const choice = chooseCarrier(server, via, main, carriers);
        return choice.kind === 'main' ? null : choice.kind === 'unsupported' ? choice.reason : choice.note;
      },
      relays: () => this.relays,
    });
    this.carried = carriers.map((core, i) => ({
      core,
      prober: new CoreProber({
        ...mainOptions,
        core,
        fileName: `prober-carrier-${i}`,
        cannotHost: (server, via) => {
          const choice = chooseCarrier(server, via, main, carriers);
          return choice.kind === 'carried' && choice.core === core ? null : 'not carried by this core';
        },
        antiDpiHop: (serverId) => this.main.relayHop(serverId),
        hold: () => this.main.hold(),
      }),
    }));
    // A main core restarted (after a crash) has its relays on new ports: the carriers' follow.
    this.main.on('rebuilt', () => this.follow());
  }

  /** Events of every prober (the main one's and each carrier's). */
  on<K extends keyof ProberEvents>(event: K, listener: (payload: ProberEvents[K]) => void): () => void {
    const offs = [this.main, ...this.carried.map((c) => c.prober)].map((p) => p.on(event, listener));
    return () => offs.forEach((off) => off());
  }

  /** Every prober is given the whole list (a chained server needs its upstream); each hosts its own share. */
  setServers(servers: readonly Server[]): void {
    const byId = new Map(servers.map((s) => [s.id, s]));
    this.route.clear();
    for (const server of servers) {
      const choice = chooseCarrier(server, server.via ? byId.get(server.via) : undefined, this.main.options.core, this.carried.map((c) => c.core));
      if (choice.kind !== 'carried') continue;
      const owner = this.carried.find((c) => c.core === choice.core);
      if (owner) this.route.set(server.id, owner.prober);
    }
    this.servers = servers;
    const { relays, notApplied } = probeRelays(servers, this.main.options.antiDpi, this.main.options.core, this.carried.map((c) => c.core));
    this.relays = relays;
    for (const note of notApplied) if (!this.said.has(note)) this.main.options.logger.warn('PROBER', `${note}; probing without it`);
    // A note that stopped being true (options changed) is said again when it is again.
    this.said = new Set(notApplied);
    this.main.setServers(servers);
    this.following = this.following.then(() => this.main.settled()).then(() => this.follow());
  }

  async settled(): Promise<void> {
    await this.following;
    await Promise.all([this.main.settled(), ...this.carried.map((c) => c.prober.settled())]);
  }

  readiness(serverId: ServerId): Readiness {
    return this.notYet(serverId) ?? this.proberOf(serverId).readiness(serverId);
  }

  probe(serverId: ServerId, request: ProbeRequest): Promise<ProbeOutcome> {
    const missing = this.notYet(serverId);
    if (missing) return Promise.resolve({ ok: false, error: { kind: 'unknown', message: missing.reason } });
    return this.proberOf(serverId).probe(serverId, request);
  }

  fetchThrough(serverId: ServerId, request: FetchThroughRequest): Promise<FetchThroughResult> {
    const missing = this.notYet(serverId);
    if (missing) return Promise.resolve({ ok: false, error: { kind: 'unknown', message: missing.reason }, elapsedMs: 0 });
    return this.proberOf(serverId).fetchThrough(serverId, request);
  }

  download(serverId: ServerId, request: DownloadRequest): Promise<TransferCourse> {
    const missing = this.notYet(serverId);
    if (missing) return Promise.resolve({ kind: 'error', error: { kind: 'unknown', message: missing.reason } });
    return this.proberOf(serverId).download(serverId, request);
  }

  tcpPing(server: Server, timeoutMs: number, signal?: AbortSignal): Promise<ProbeOutcome> {
    return tcpPing(server, timeoutMs, signal);
  }

  async close(): Promise<void> {
    await Promise.all([this.main.close(), ...this.carried.map((c) => c.prober.close())]);
  }

  private proberOf(serverId: ServerId): CoreProber {
    return this.route.get(serverId) ?? this.main;
  }

  private follow(): void {
    const servers = this.servers;
    if (!servers) return;
    this.followed = servers;
    for (const { prober } of this.carried) prober.setServers(servers);
  }

  /**
   * Why a carried server cannot be probed yet: its carrier's prober has not been given the list
   * (the main prober is building) and its running core does not host it, or its options go
   * through a relay while the main prober's core is not up, and a probe dialled without them
   * would test a path the tunnel does not take.
   */
  private notYet(serverId: ServerId): { ready: false; reason: string } | null {
    const carrier = this.route.get(serverId);
    if (!carrier) return null;
    if (this.followed !== this.servers && !carrier.readiness(serverId).ready) return { ready: false, reason: 'the prober core is starting' };
    if (!this.relays.some((r) => r.serverId === serverId) || this.main.relayHop(serverId)) return null;
    return { ready: false, reason: 'its anti-DPI options are applied by the main prober core, which is not running' };
  }
}
