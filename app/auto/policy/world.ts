/**
 * What Auto reads about the world it does not own: the subscriptions (in list order) and what the
 * monitor knows about each server. The reducer gets it as an argument on every step instead of
 * keeping a copy, so the monitor's store stays the one source of truth for measurements and a
 * recording made by one step is seen by the next.
 */
import type { Measurement } from '../../../shared/domain/measurement';
import type { ServerId, SubscriptionId } from '../../../shared/domain/server';
import type { Verdict } from '../../../shared/domain/status';
import type { TransferVerdict } from '../../../shared/domain/transfer';

export interface SubscriptionServers {
  id: SubscriptionId;
  /** Server ids in subscription order. */
  serverIds: readonly ServerId[];
}

export interface AutoWorld {
  /** Subscriptions in list order: the order defines "above" and "below". */
  subscriptions(): readonly SubscriptionServers[];
  /** The server's stored measurements (any order; the score sorts them by time). */
  measurements(serverId: ServerId): readonly Measurement[];
  /** The server's latest result was loaded from the previous run's cache and not retested yet. */
  fromCache(serverId: ServerId): boolean;
  /** Download speed measured on request, bytes per second, or null. */
  throughputBps(serverId: ServerId): number | null;
  /** The reachability verdict (spec/reachability.md), when one was derived. */
  verdict(serverId: ServerId): Verdict | null;
  /** The verdict of the server's latest transfer test (the monitor's download after a ping), when one ran. */
  transferVerdict?(serverId: ServerId): TransferVerdict | null;
  /** The server's latest transfer test with its time, when one ran (its freshness decides whether a check retests it). */
  transferResult?(serverId: ServerId): TransferSeen | null;
  /**
   * The user marked the server in a list this reducer does not own, and it is honoured as a mark
   * of its own: a server group's reducer reads the marks of the servers' own subscriptions (a
   * server excluded from Auto is one the user does not want used, for a group's sites either).
   * The main Auto owns those marks and has no such list.
   */
  markedElsewhere?(serverId: ServerId): boolean;
}

/** A transfer test as Auto reads it. */
export interface TransferSeen {
  verdict: TransferVerdict;
  /** When it ended (epoch ms). */
  at: number;
  /** Body bytes that came (for `freezes`: before the silence). */
  bytes: number;
  /** Loaded from the previous run's cache, not tested again in this one. */
  fromCache: boolean;
}

/** A world made of plain data: for tests and the simulator. */
export interface WorldData {
  subscriptions: SubscriptionServers[];
  measurements?: Record<ServerId, Measurement[]>;
  fromCache?: Record<ServerId, boolean>;
  throughputBps?: Record<ServerId, number>;
  verdicts?: Record<ServerId, Verdict>;
  /** Each server's latest transfer test: a bare verdict is one made long ago (never fresh). */
  transfers?: Record<ServerId, TransferVerdict | TransferSeen>;
  /** Servers marked in a list the reducer does not own (a group's world: their subscriptions' marks). */
  markedElsewhere?: ServerId[];
}

const LONG_AGO = 0;
/** A bare `freezes` is DPI's freeze: after the first 16 KB, as the lab's freeze fault does. */
const BARE_FREEZE_BYTES = 16 * 1024;

export function worldOf(data: WorldData): AutoWorld {
  return {
    subscriptions: () => data.subscriptions,
    measurements: (id) => data.measurements?.[id] ?? [],
    fromCache: (id) => data.fromCache?.[id] ?? false,
    throughputBps: (id) => data.throughputBps?.[id] ?? null,
    verdict: (id) => data.verdicts?.[id] ?? null,
    transferVerdict: (id) => transferOfData(data, id)?.verdict ?? null,
    transferResult: (id) => transferOfData(data, id),
    ...(data.markedElsewhere ? { markedElsewhere: (id: ServerId) => data.markedElsewhere?.includes(id) ?? false } : {}),
  };
}

function transferOfData(data: WorldData, id: ServerId): TransferSeen | null {
  const t = data.transfers?.[id];
  if (t === undefined) return null;
  return typeof t === 'string' ? { verdict: t, at: LONG_AGO, bytes: t === 'freezes' ? BARE_FREEZE_BYTES : 0, fromCache: false } : t;
}

export function subscriptionOf(world: AutoWorld, serverId: ServerId): SubscriptionServers | undefined {
  return world.subscriptions().find((s) => s.serverIds.includes(serverId));
}

export function findSubscription(world: AutoWorld, id: SubscriptionId): SubscriptionServers | undefined {
  return world.subscriptions().find((s) => s.id === id);
}

/**
 * The nearest subscriptions above and below `id` that have servers (an empty subscription has
 * nothing to ask, so the next one out is the nearest that can answer).
 */
export function neighboursOf(world: AutoWorld, id: SubscriptionId): SubscriptionServers[] {
  const list = world.subscriptions();
  const index = list.findIndex((s) => s.id === id);
  if (index < 0) return [];
  const above = list.slice(0, index).reverse().find((s) => s.serverIds.length > 0);
  const below = list.slice(index + 1).find((s) => s.serverIds.length > 0);
  return [above, below].filter((s): s is SubscriptionServers => s !== undefined);
}
