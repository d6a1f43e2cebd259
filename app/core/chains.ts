/**
 * The chains the user chose in servers' details, put on the servers of the day: a chosen front
 * takes the place of the chain a share link encodes (or gives a server one it did not have).
 * Pure; the rules are in chains.test.ts.
 *
 * A front that left every subscription keeps its place in the chain and the server is refused with
 * the reason: dialling it directly instead would send its traffic by a path the user chose against
 * (in whitelist mode the direct path is the one that does not work). A front that is chained itself
 * is refused where every core's ability is judged (support.ts), so the prober and the tunnel agree.
 */
import type { Server, ServerId } from '../../shared/domain/server';
import type { Subscription } from '../../shared/domain/subscription';
import type { Chains } from '../../shared/settings';

export interface ChosenChains {
  subscriptions: Subscription[];
  /** Servers that cannot run as chosen, each with the reason in words. */
  refused: Record<ServerId, string>;
}

export const FRONT_GONE = 'reached through a server that is no longer in any subscription (chosen in its details): choose another front or none';

export function withChosenChains(subscriptions: readonly Subscription[], chains: Chains): ChosenChains {
  const refused: Record<ServerId, string> = {};
  if (Object.keys(chains).length === 0) return { subscriptions: [...subscriptions], refused };
  const known = new Set<ServerId>(subscriptions.flatMap((s) => s.servers.map((server) => server.id)));
  const chained = (server: Server): Server => {
    const front = chains[server.id];
    if (front === undefined || front === server.id) return server;
    if (!known.has(front)) refused[server.id] = FRONT_GONE;
    return { ...server, via: front };
  };
  return { subscriptions: subscriptions.map((s) => ({ ...s, servers: s.servers.map(chained) })), refused };
}
