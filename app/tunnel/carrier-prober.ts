/**
 * The prober beside a carrier: each server is probed by the core that will carry it. The main
 * core's prober hosts what the main core runs; a sing-box prober hosts what sing-box carries
 * (one inbound per server, as the main one); a server neither runs is reported by the main prober
 * with both cores' reasons. The monitor sees one ServerProber.
 */
import type { ProbeOutcome } from '../../shared/domain/measurement';
import type { Server, ServerId } from '../../shared/domain/server';
import { chooseCarrier, type CoreProfile } from '../core';
import type { DownloadRequest, FetchThroughRequest, FetchThroughResult, ProbeRequest, Readiness, ServerProber, TransferCourse } from './probe-contract';
import { CoreProber, type CoreProberOptions, type ProberEvents } from './prober';
import { tcpPing } from './tcp-ping';

export class CarrierProber implements ServerProber {
  readonly main: CoreProber;
  private readonly carried: { core: CoreProfile; prober: CoreProber }[];
  /** Which carrier's prober hosts a server (absent: the main one). */
  private readonly route = new Map<ServerId, CoreProber>();

  constructor(options: CoreProberOptions & { carriers: readonly CoreProfile[] }) {
    const { carriers, ...mainOptions } = options;
    const main = mainOptions.core;
    this.main = new CoreProber({
      ...mainOptions,
      cannotHost: (server, via) => {
        const choice = chooseCarrier(server, via, main, carriers);
        return choice.kind === 'main' ? null : choice.kind === 'unsupported' ? choice.reason : choice.note;
      },
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
      }),
    }));
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
    this.main.setServers(servers);
    for (const { prober } of this.carried) prober.setServers(servers);
  }

  async settled(): Promise<void> {
    await Promise.all([this.main.settled(), ...this.carried.map((c) => c.prober.settled())]);
  }

  readiness(serverId: ServerId): Readiness {
    return this.proberOf(serverId).readiness(serverId);
  }

  probe(serverId: ServerId, request: ProbeRequest): Promise<ProbeOutcome> {
    return this.proberOf(serverId).probe(serverId, request);
  }

  fetchThrough(serverId: ServerId, request: FetchThroughRequest): Promise<FetchThroughResult> {
    return this.proberOf(serverId).fetchThrough(serverId, request);
  }

  download(serverId: ServerId, request: DownloadRequest): Promise<TransferCourse> {
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
}
