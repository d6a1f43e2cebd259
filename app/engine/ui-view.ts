import type { Server } from '../../shared/domain/server';
import type { Subscription } from '../../shared/domain/subscription';

/**
 * What the UI is sent of a server: everything but its credentials. The UI shows names, addresses
 * and protocols and refers to servers by id; it never needs a UUID, password or key, and a page (or
 * anything that can read it) should never hold one.
 */
export function serverForUi(server: Server): Server {
  switch (server.protocol) {
    case 'vmess':
    case 'vless':
      return { ...server, uuid: '' };
    case 'trojan':
    case 'anytls':
      return { ...server, password: '' };
    case 'hysteria':
      return { ...server, ...(server.auth !== undefined ? { auth: '' } : {}), ...(server.obfs !== undefined ? { obfs: '' } : {}) };
    case 'shadowsocks':
      return { ...server, password: '', ...(server.plugin ? { plugin: { name: server.plugin.name, options: '' } } : {}) };
    case 'hysteria2':
      return { ...server, password: '', ...(server.obfs ? { obfs: { type: server.obfs.type, password: '' } } : {}) };
    case 'tuic':
      return { ...server, uuid: '', password: '' };
    case 'wireguard':
      return { ...server, privateKey: '', ...(server.preSharedKey ? { preSharedKey: '' } : {}) };
    case 'socks':
    case 'http':
    case 'naive':
      return { ...server, ...(server.password !== undefined ? { password: '' } : {}) };
  }
}

export function subscriptionForUi(subscription: Subscription): Subscription {
  return { ...subscription, servers: subscription.servers.map(serverForUi) };
}
