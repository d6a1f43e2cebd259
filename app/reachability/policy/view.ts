/**
 * What reachability knows at one moment, gathered once for the rules (pure): every server's
 * results from here (the monitor's URL tests and the confirmations), its exit network, what the
 * vantage points said, and what follows from all servers together (is the user's network lost,
 * which vantage points look broken, who could be asked).
 */
import type { Measurement } from '../../../shared/domain/measurement';
import type { Server, ServerId } from '../../../shared/domain/server';
import type { ServerStatus } from '../../../shared/domain/status';
import { type ExitNetwork, exitNetworkOf } from './exit-network';
import { assessNetwork, type HereResult, type NetworkAssessment } from './here';
import type { VantageObservation } from './observation';
import type { VantageCandidate } from './planner';
import type { ReachabilityRules } from './rules';
import { assessVantages } from './witness';

export interface ReachabilityView {
  /** In subscription order. */
  servers: readonly Server[];
  byId: ReadonlyMap<ServerId, Server>;
  /** Results from here per server, any order: the monitor's URL tests and the confirmations. */
  here: ReadonlyMap<ServerId, readonly HereResult[]>;
  exitNetworks: ReadonlyMap<ServerId, ExitNetwork>;
  /** What vantage points said, by target. */
  observations: ReadonlyMap<ServerId, readonly VantageObservation[]>;
  network: NetworkAssessment;
  /** Vantage points that suddenly cannot see half or more of what they could (witness.ts), with why. */
  unreliableVantages: ReadonlyMap<ServerId, string>;
  /** Every server as a vantage candidate, in preference order; worked out on first use (it looks at every server). */
  candidates(): readonly VantageCandidate[];
  /** Why the core cannot dial `target` through `vantage`, or null. */
  unsupported(vantage: Server, target: Server): string | null;
  trustedCheckerId: ServerId | null;
  rules: ReachabilityRules;
}

export interface ViewSources {
  servers: readonly Server[];
  /** The monitor's results of a server: its recent measurements and exit IP info. */
  status(serverId: ServerId): Pick<ServerStatus, 'recent' | 'ipInfo'>;
  confirmations(serverId: ServerId): readonly HereResult[];
  observations: ReadonlyMap<ServerId, readonly VantageObservation[]>;
  /** A signal from elsewhere that the user's network is lost (a sentence), or null. */
  networkLost: string | null;
  unsupported(vantage: Server, target: Server): string | null;
  trustedCheckerId: ServerId | null;
  rules: ReachabilityRules;
}

export function buildView(sources: ViewSources, now: number): ReachabilityView {
  const { servers, rules } = sources;
  const here = new Map<ServerId, HereResult[]>();
  const exitNetworks = new Map<ServerId, ExitNetwork>();
  const working = new Map<ServerId, number | null>();
  for (const server of servers) {
    const status = sources.status(server.id);
    const urls = status.recent.filter((m) => m.method === 'url');
    here.set(server.id, [...urls.map((m) => ({ at: m.at, ok: m.delayMs !== null })), ...sources.confirmations(server.id)]);
    exitNetworks.set(server.id, exitNetworkOf(status.ipInfo, server.address));
    working.set(server.id, workingDelay(urls, now, rules));
  }
  const observations = new Map(sources.observations);
  let candidates: VantageCandidate[] | null = null;
  return {
    servers,
    byId: new Map(servers.map((s) => [s.id, s])),
    here,
    exitNetworks,
    observations,
    network: assessNetwork(here, now, rules, sources.networkLost),
    unreliableVantages: assessVantages(observations, now, rules),
    candidates: () =>
      (candidates ??= servers
        .map((server, index) => ({ id: server.id, name: server.name, network: exitNetworks.get(server.id) as ExitNetwork, workingDelayMs: working.get(server.id) ?? null, index }))
        // Pre-sorted the planner's way (ASN-known networks, then speed) so its sort has nothing to do.
        .sort((a, b) => rankOf(a.network) - rankOf(b.network) || (a.workingDelayMs ?? Infinity) - (b.workingDelayMs ?? Infinity) || a.index - b.index)),
    unsupported: (vantage, target) => sources.unsupported(vantage, target),
    trustedCheckerId: sources.trustedCheckerId,
    rules,
  };
}

function rankOf(network: ExitNetwork): number {
  return network.kind === 'asn' ? 0 : network.kind === 'prefix' ? 1 : 2;
}

/** The delay of the latest fresh URL result from here when it answered, else null. */
function workingDelay(urls: readonly Measurement[], now: number, rules: ReachabilityRules): number | null {
  const latest = urls.filter((m) => m.at <= now).reduce<Measurement | null>((a, m) => (!a || m.at >= a.at ? m : a), null);
  if (!latest || latest.delayMs === null || now - latest.at > rules.freshnessMs) return null;
  return latest.delayMs;
}
