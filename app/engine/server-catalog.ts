import type { ServerId } from '../../shared/domain/server';
import type { Subscription } from '../../shared/domain/subscription';
import type { ListSubscription } from '../../shared/ipc/contract';
import type { Chains } from '../../shared/settings';
import type { SubscriptionServers } from '../auto/policy/world';
import { chooseCarrier, type CoreProfile } from '../core';
import { withChosenChains } from '../core/chains';
import { ServerIndex } from './server-index';
import { subscriptionForUi } from './ui-view';

/**
 * What the engine knows of the user's servers, rebuilt whenever the subscriptions (or the chains
 * chosen in servers' details) change: every server by id with its chain, Auto's view of the list,
 * and which servers the core cannot run (and why).
 */
export class ServerCatalog {
  readonly index = new ServerIndex();
  private forAuto: SubscriptionServers[] = [];
  private cannotRun: Record<ServerId, string> = {};
  private carriedBy: Record<ServerId, string> = {};
  private chained: Subscription[] = [];
  /** The window's form of `chained`, made once per rebuild: every snapshot and event shares it. */
  private forWindow: readonly ListSubscription[] | null = null;

  /**
   * `core`: null without one (then nothing runs, and the app says so once, not per server);
   * `carriers`: the cores that carry what it cannot (sing-box); `chains`: the fronts the user chose.
   */
  constructor(
    private readonly core: CoreProfile | null,
    private readonly carriers: readonly CoreProfile[] = [],
    private readonly chains: () => Chains = () => ({}),
  ) {}

  rebuild(subscriptions: readonly Subscription[]): void {
    const chosen = withChosenChains(subscriptions, this.chains());
    this.chained = chosen.subscriptions;
    this.forWindow = null;
    this.index.rebuild(this.chained);
    // Auto reads the list on every step: its shape is kept ready instead of rebuilt each time.
    this.forAuto = subscriptions.map((s) => ({ id: s.id, serverIds: s.servers.map((server) => server.id) }));
    const split = this.core ? carriersOf(this.core, this.carriers, this.index) : { unsupported: {}, carried: {} };
    this.cannotRun = { ...split.unsupported, ...chosen.refused };
    this.carriedBy = split.carried;
  }

  /** The subscriptions as the app runs them: each server with the chain chosen for it, if any. */
  subscriptions(): readonly Subscription[] {
    return this.chained;
  }

  /**
   * The subscriptions as the window lists them. The same objects until the next rebuild, so their
   * wire form is made once per change (shared/ipc/wire.ts), not once per window that opens.
   */
  listed(): readonly ListSubscription[] {
    this.forWindow ??= this.chained.map(subscriptionForUi);
    return this.forWindow;
  }

  /** The subscriptions in their order, each with its servers' ids in order. */
  autoView(): SubscriptionServers[] {
    return this.forAuto;
  }

  /** The servers the core cannot run, each with the reason in words. */
  unsupported(): Record<ServerId, string> {
    return this.cannotRun;
  }

  /** The servers a carrier runs for the main core, each with what its details say ("carried by sing-box 1.14.1: …"). */
  carried(): Record<ServerId, string> {
    return this.carriedBy;
  }

  /**
   * Whether the tunnel runs the server, on its core or in a carrier beside it: a server group may
   * take it as a member either way (a carried pick gets a carrier of its own, app/tunnel/group-carrier.ts).
   */
  runsInTunnel(id: ServerId): boolean {
    return !this.cannotRun[id];
  }
}

function carriersOf(core: CoreProfile, carriers: readonly CoreProfile[], index: ServerIndex): { unsupported: Record<ServerId, string>; carried: Record<ServerId, string> } {
  const unsupported: Record<ServerId, string> = {};
  const carried: Record<ServerId, string> = {};
  for (const server of index.all()) {
    const choice = chooseCarrier(server, server.via ? index.get(server.via) : undefined, core, carriers);
    if (choice.kind === 'unsupported') unsupported[server.id] = choice.reason;
    else if (choice.kind === 'carried') carried[server.id] = choice.note;
  }
  return { unsupported, carried };
}
