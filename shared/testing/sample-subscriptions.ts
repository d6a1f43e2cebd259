/** Test-only: a subscription of `servers` as a test needs it (fetched once, nothing wrong with it). */
import type { Server, SubscriptionId } from '../domain/server';
import type { Subscription } from '../domain/subscription';

export function sampleSubscription(id: SubscriptionId, servers: Server[], extra: Partial<Subscription> = {}): Subscription {
  return { id, name: `Provider ${id}`, servers, usage: null, rejected: [], updatedAt: null, lastError: null, pendingEmpty: false, ...extra };
}
