import type { Server, ServerId, SubscriptionId } from '../../../shared/domain/server';
import type { Subscription } from '../../../shared/domain/subscription';
import { sampleServer } from '../../../shared/domain/sample-servers';
import { sampleSubscription } from '../../../shared/testing/sample-subscriptions';

/** A VLESS server of a subscription (REALITY when `reality`: beyond v2ray 4.34). */
export function vlessServer(id: ServerId, subscriptionId: SubscriptionId, extra: Partial<Server> = {}, reality = false): Server {
  const base = sampleServer('vless', 'tcp', { id, subscriptionId, name: `Server ${id}`, ...extra });
  return reality
    ? ({ ...base, security: { type: 'reality', sni: 'www.example.com', publicKey: 'Z84J2IelR9ch3k8VtlVhhs5ycBUlXA7wHBWcBrjqnAw', shortId: '6ba85179e30d4fc2' } } as Server)
    : base;
}

export function subscriptionOf(id: SubscriptionId, servers: Server[], extra: Partial<Subscription> = {}): Subscription {
  return sampleSubscription(id, servers, { updatedAt: 1, ...extra });
}
