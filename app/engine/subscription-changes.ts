/**
 * Where a change of the subscription list goes: the catalog is rebuilt first (everything after it
 * reads the new servers), then the probes, the monitor, reachability and Auto follow, and the
 * window gets the list (without credentials) and what the core cannot run.
 */
import type { ListSubscription } from '../../shared/ipc/contract';
import type { Server, ServerId } from '../../shared/domain/server';
import type { Subscription } from '../../shared/domain/subscription';
import type { ServerCatalog } from './server-catalog';
import { subscriptionForUi } from './ui-view';

export interface SubscriptionChangeTargets {
  catalog: Pick<ServerCatalog, 'rebuild' | 'index' | 'unsupported'> & Partial<Pick<ServerCatalog, 'carried' | 'listed'>>;
  /** The probe cores are given every server (where a core runs). */
  setProbedServers(servers: readonly Server[]): void;
  monitor: { serversChanged(): void };
  reachability: { refresh(): void };
  auto: { subscriptionsUpdated(): void };
  publish: { subscriptions(list: ListSubscription[]): void; unsupported(reasons: Record<ServerId, string>): void; carried?(notes: Record<ServerId, string>): void };
}

export function followSubscriptions(list: readonly Subscription[], targets: SubscriptionChangeTargets): void {
  targets.catalog.rebuild(list);
  targets.setProbedServers(targets.catalog.index.all());
  targets.monitor.serversChanged();
  targets.reachability.refresh();
  targets.auto.subscriptionsUpdated();
  // The window sees each server with the chain it runs by (a chosen front included).
  targets.publish.subscriptions(targets.catalog.listed ? [...targets.catalog.listed()] : list.map(subscriptionForUi));
  targets.publish.unsupported(targets.catalog.unsupported());
  if (targets.catalog.carried) targets.publish.carried?.(targets.catalog.carried());
}
