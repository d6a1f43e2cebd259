import type { ServerStatus } from '../../shared/domain/status';
import type { Subscription } from '../../shared/domain/subscription';
import type { ListServer, ListStatus, ListSubscription } from '../../shared/ipc/contract';

/**
 * What the window is sent of a subscription: its servers as the list shows them (id, name,
 * protocol, address, port), never their credentials, transport or security. The window refers to
 * servers by id; a page (or anything that can read it) never holds a UUID, password or key, and
 * 5,000 servers open without shipping settings no row shows.
 */
export function subscriptionForUi(subscription: Subscription): ListSubscription {
  return { ...subscription, servers: subscription.servers.map(serverForList) };
}

function serverForList(server: ListServer): ListServer {
  const listed: ListServer = { id: server.id, subscriptionId: server.subscriptionId, name: server.name, protocol: server.protocol, address: server.address, port: server.port };
  if (server.via !== undefined) listed.via = server.via;
  return listed;
}

/** A status as the list and the stream carry it: the statistics and the last measurements stay for the details to ask. */
export function statusForList(status: ServerStatus): ListStatus {
  const { statistics: _statistics, recent: _recent, ...listed } = status;
  return listed;
}
