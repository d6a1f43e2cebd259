import type { ServerId } from '../../shared/domain/server';
import type { Subscription } from '../../shared/domain/subscription';
import type { SubscriptionServers } from '../auto/policy/world';
import { type CoreProfile, unsupportedReason } from '../core';
import { ServerIndex } from './server-index';

/**
 * What the engine knows of the user's servers, rebuilt whenever the subscriptions change: every
 * server by id, Auto's view of the list, and which servers the core cannot run (and why).
 */
export class ServerCatalog {
  readonly index = new ServerIndex();
  private forAuto: SubscriptionServers[] = [];
  private cannotRun: Record<ServerId, string> = {};

  /** `core`: null without one (then nothing runs, and the app says so once, not per server). */
  constructor(private readonly core: CoreProfile | null) {}

  rebuild(subscriptions: readonly Subscription[]): void {
    this.index.rebuild(subscriptions);
    // Auto reads the list on every step: its shape is kept ready instead of rebuilt each time.
    this.forAuto = subscriptions.map((s) => ({ id: s.id, serverIds: s.servers.map((server) => server.id) }));
    this.cannotRun = this.core ? unsupportedOn(this.core, this.index) : {};
  }

  /** The subscriptions in their order, each with its servers' ids in order. */
  autoView(): SubscriptionServers[] {
    return this.forAuto;
  }

  /** The servers the core cannot run, each with the reason in words. */
  unsupported(): Record<ServerId, string> {
    return this.cannotRun;
  }
}

function unsupportedOn(core: CoreProfile, index: ServerIndex): Record<ServerId, string> {
  const out: Record<ServerId, string> = {};
  for (const server of index.all()) {
    const reason = unsupportedReason(server, core, server.via ? index.get(server.via) : undefined);
    if (reason) out[server.id] = reason;
  }
  return out;
}
