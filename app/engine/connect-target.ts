import type { ServerId, SubscriptionId } from '../../shared/domain/server';

export interface ConnectContext {
  /** The server the user named, if any. */
  requested: ServerId | undefined;
  /** The server the tunnel is on or was last asked for. */
  current: ServerId | null;
  /** The subscription Auto is on. */
  autoSubscriptionId: SubscriptionId | null;
  /** The user's subscriptions in their order, each with its servers in order. */
  subscriptions: readonly { id: SubscriptionId; serverIds: readonly ServerId[] }[];
}

/**
 * Which server Connect uses, decided here for every caller (the window's button, the tray, the
 * CLI): the one named; else the current one; else the first of Auto's subscription; else the
 * first server of the first subscription. Null when there is none to use.
 */
export function connectTarget(context: ConnectContext): ServerId | null {
  if (context.requested !== undefined) return context.requested;
  if (context.current !== null) return context.current;
  const subscription = context.autoSubscriptionId
    ? context.subscriptions.find((s) => s.id === context.autoSubscriptionId)
    : context.subscriptions[0];
  return subscription?.serverIds[0] ?? null;
}
