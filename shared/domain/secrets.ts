import type { Server } from './server';

/** Every value of a server that must never reach a log. */
export function secretsOf(server: Server): string[] {
  switch (server.protocol) {
    case 'vmess':
    case 'vless':
      return [server.uuid];
    case 'tuic':
      return [server.uuid, server.password];
    case 'trojan':
    case 'anytls':
      return [server.password];
    case 'hysteria':
      return [server.auth ?? '', server.obfs ?? ''];
    case 'hysteria2':
      return [server.password, server.obfs?.password ?? ''];
    case 'shadowsocks':
      return [server.password, ...server.password.split(':')];
    case 'wireguard':
      return [server.privateKey, server.preSharedKey ?? ''];
    case 'socks':
    case 'http':
    case 'naive':
      return [server.password ?? '', server.username ?? ''];
  }
}
