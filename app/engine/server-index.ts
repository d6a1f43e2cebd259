import type { Server, ServerId } from '../../shared/domain/server';
import type { Subscription } from '../../shared/domain/subscription';
import { EngineRefusal } from '../../shared/domain/refusal';

/**
 * Every server of every subscription, in list order, looked up by id. Rebuilt whenever the
 * subscriptions change; cheap enough for 5,000 servers.
 */
export class ServerIndex {
  private list: Server[] = [];
  private byId = new Map<ServerId, Server>();

  rebuild(subscriptions: readonly Subscription[]): void {
    this.list = subscriptions.flatMap((s) => s.servers);
    this.byId = new Map(this.list.map((s) => [s.id, s]));
  }

  all(): readonly Server[] {
    return this.list;
  }

  get(id: ServerId): Server | undefined {
    return this.byId.get(id);
  }

  /** The server and, when it is chained, the server it dials through. */
  withUpstream(id: ServerId): { server: Server; via?: Server } | undefined {
    const server = this.byId.get(id);
    if (!server) return undefined;
    const via = server.via ? this.byId.get(server.via) : undefined;
    return via ? { server, via } : { server };
  }

  require(id: ServerId): Server {
    const server = this.byId.get(id);
    if (!server) throw new EngineRefusal('no-such-server', `no server with id "${id}" (it may have left its subscription)`);
    return server;
  }
}
