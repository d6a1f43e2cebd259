import type { ServerId, SubscriptionId } from '../../shared/domain/server';

export interface ConnectContext {
  /** The server the user named, if any. */
  requested: ServerId | undefined;
  /** The server the tunnel is on or was last asked for (with Auto on, Auto's choice). */
  current: ServerId | null;
  /** The subscription Auto is on. */
  autoSubscriptionId: SubscriptionId | null;
  /** The user's subscriptions in their order, each with its servers in order. */
  subscriptions: readonly { id: SubscriptionId; serverIds: readonly ServerId[] }[];
  /** Servers the user keeps out of Auto, per subscription. */
  excluded: Readonly<Record<SubscriptionId, readonly ServerId[]>>;
  /** Servers the core cannot run, with why. */
  unsupported: Readonly<Record<ServerId, string>>;
  /** The server's last measured delay; null when it did not answer or was not tested. */
  delayOf: (id: ServerId) => number | null;
}

/**
 * Which server Connect uses, decided here for every caller (the window's button, the tray, the
 * CLI): the one named; else the current one, while it still exists; else, among the servers of
 * Auto's subscription (all subscriptions when Auto is off) that are neither excluded nor
 * unsupported, the fastest that answered, else the first. Null when there is none to use.
 */
export function connectTarget(context: ConnectContext): ServerId | null {
  if (context.requested !== undefined) return context.requested;
  const exists = (id: ServerId) => context.subscriptions.some((s) => s.serverIds.includes(id));
  if (context.current !== null && exists(context.current)) return context.current;
  const pool = context.autoSubscriptionId
    ? context.subscriptions.filter((s) => s.id === context.autoSubscriptionId)
    : context.subscriptions;
  const candidates = pool.flatMap((s) => s.serverIds.filter((id) => !context.unsupported[id] && !context.excluded[s.id]?.includes(id)));
  let fastest: { id: ServerId; delayMs: number } | null = null;
  for (const id of candidates) {
    const delayMs = context.delayOf(id);
    if (delayMs !== null && (!fastest || delayMs < fastest.delayMs)) fastest = { id, delayMs };
  }
  return fastest?.id ?? candidates[0] ?? null;
}
