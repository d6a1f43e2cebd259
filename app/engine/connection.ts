/**
 * Connect and Disconnect as the user asks for them (the window's button, the tray, the CLI): which
 * server, whether the core can run it, and Auto told when the user picked a server themselves.
 */
import type { ConnectionState } from '../../shared/domain/connection';
import type { ServerId, SubscriptionId } from '../../shared/domain/server';
import { connectTarget } from './connect-target';
import type { HandlersOf } from './contract-handlers';
import type { ServerCatalog } from './server-catalog';
import type { TunnelDriver } from './tunnel-driver';
import { EngineRefusal } from '../../shared/domain/refusal';

export interface ConnectionDeps {
  driver: Pick<TunnelDriver, 'connect' | 'disconnect' | 'current'>;
  auto: {
    snapshot(): { subscriptionId: SubscriptionId | null; excluded: Readonly<Record<SubscriptionId, readonly ServerId[]>> };
    /** The user chose this server: Auto steps aside. */
    manualConnect(serverId: ServerId): void;
  };
  catalog: Pick<ServerCatalog, 'index' | 'autoView' | 'unsupported'>;
  /** A server's last measured delay (Connect without a server takes the fastest). */
  delayOf(serverId: ServerId): number | null;
  /** Tests the server the tunnel is now on (the window shows its delay at once). */
  testConnected(serverId: ServerId): void;
  /** The connection as the window shows it. */
  state(): ConnectionState;
}

export function connectionHandlers(deps: ConnectionDeps): HandlersOf<'connect' | 'disconnect'> {
  return {
    connect: async (request) => {
      const auto = deps.auto.snapshot();
      const serverId = connectTarget({
        requested: request.serverId,
        current: deps.driver.current(),
        autoSubscriptionId: auto.subscriptionId,
        subscriptions: deps.catalog.autoView(),
        excluded: auto.excluded,
        unsupported: deps.catalog.unsupported(),
        delayOf: deps.delayOf,
      });
      if (!serverId) throw new EngineRefusal('no-server-chosen', 'choose a server to connect to, or turn Auto on for a subscription');
      deps.catalog.index.require(serverId);
      const reason = deps.catalog.unsupported()[serverId];
      if (reason) throw new EngineRefusal('server-unsupported', reason);
      if (request.serverId !== undefined) deps.auto.manualConnect(serverId);
      await deps.driver.connect(serverId);
      deps.testConnected(serverId);
      return deps.state();
    },
    disconnect: async () => {
      await deps.driver.disconnect();
      return deps.state();
    },
  };
}

/** The tunnel's state; without a core, disconnected with the reason nothing can connect. */
export function connectionStateOf(tunnel: { state(): ConnectionState } | null, noCoreReason: string): ConnectionState {
  return tunnel?.state() ?? { state: 'disconnected', serverId: null, httpProxy: null, socksProxy: null, since: null, error: noCoreReason, core: null };
}
