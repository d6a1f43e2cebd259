/** How the reasons the UI shows name protocols, transports and security layers; shared by every core's checks. */
import type { Network, Protocol, SecurityType } from '../../shared/domain/server';

export const NETWORK_NAMES: Record<Network, string> = {
  tcp: 'TCP',
  ws: 'WebSocket',
  grpc: 'gRPC',
  h2: 'HTTP/2 transport',
  httpupgrade: 'HTTPUpgrade',
  xhttp: 'XHTTP',
  kcp: 'mKCP',
  quic: 'QUIC transport',
};
export const PROTOCOL_NAMES: Record<Protocol, string> = {
  vmess: 'VMess',
  vless: 'VLESS',
  trojan: 'Trojan',
  shadowsocks: 'Shadowsocks',
  hysteria2: 'Hysteria2',
  tuic: 'TUIC',
  wireguard: 'WireGuard',
  socks: 'SOCKS',
  http: 'HTTP proxy',
  hysteria: 'Hysteria (v1)',
  anytls: 'AnyTLS',
  naive: 'NaiveProxy',
};
export const SECURITY_NAMES: Record<SecurityType, string> = { none: 'plain', tls: 'TLS', reality: 'REALITY' };

export function needs(what: string, hint: string | undefined): string {
  return hint ? `${what} needs ${hint}` : `${what} is not available in this core`;
}

/**
 * "mode=websocket;tls;host=a.com;path=/x" → Map { mode → websocket, tls → '', host → a.com, path → /x }.
 * SIP003 escapes `;`, `=` and `\` (v2ray-plugin also `,`) with a backslash: v2rayN writes the path
 * `/ws?ed=2048` as `path=/ws?ed\=2048`, which means the path with its `=`.
 */
export function pluginOptions(options: string): Map<string, string> {
  const map = new Map<string, string>();
  const unescape = (text: string) => text.replace(/\\(.)/g, '$1').trim();
  for (const part of options.split(/(?<!\\);/)) {
    if (!part.trim()) continue;
    const eq = part.search(/(?<!\\)=/);
    if (eq < 0) map.set(unescape(part), '');
    else map.set(unescape(part.slice(0, eq)), unescape(part.slice(eq + 1)));
  }
  return map;
}
