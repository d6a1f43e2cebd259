/**
 * Share links in the formats real subscriptions use: vmess:// (base64 JSON, v2rayN style),
 * vless:// and trojan:// (URI with query), ss:// (SIP002). The client dials the relay, so the
 * link's host:port is the relay's front address, not the server's own inbound.
 */
import { TLS_SERVER_NAME, WS_HOST, type ServerSpec } from './world';

export interface Dial {
  host: string;
  port: number;
}

function query(params: [string, string][]): string {
  return params.map(([k, v]) => `${k}=${encodeURIComponent(v)}`).join('&');
}

function transportParams(server: ServerSpec): [string, string][] {
  const params: [string, string][] = [['type', server.network]];
  if (server.network === 'ws') params.push(['path', server.wsPath], ['host', WS_HOST]);
  params.push(['security', server.security]);
  if (server.security === 'tls') {
    params.push(['sni', TLS_SERVER_NAME], ['allowInsecure', '1']);
    if (server.certificatePin) params.push(['pcs', server.certificatePin]);
  }
  return params;
}

/** base64url without padding, as SIP002 asks for the user-info part. */
export function base64Url(text: string): string {
  return Buffer.from(text, 'utf8').toString('base64').replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

export function vmessLink(server: ServerSpec, dial: Dial): string {
  // Older generators write port and aid as strings, newer ones as numbers: serve both kinds.
  const asString = Math.floor(server.index / 4) % 2 === 0; // vmess servers are every 4th index
  const body = {
    v: '2',
    ps: server.name,
    add: dial.host,
    port: asString ? String(dial.port) : dial.port,
    id: server.uuid,
    aid: asString ? '0' : 0,
    scy: 'auto',
    net: server.network,
    type: 'none',
    host: server.network === 'ws' ? WS_HOST : '',
    path: server.network === 'ws' ? server.wsPath : '',
    tls: server.security === 'tls' ? 'tls' : '',
    sni: server.security === 'tls' ? TLS_SERVER_NAME : '',
  };
  return `vmess://${Buffer.from(JSON.stringify(body), 'utf8').toString('base64')}`;
}

export function vlessLink(server: ServerSpec, dial: Dial): string {
  const params = query([['encryption', 'none'], ...transportParams(server)]);
  return `vless://${server.uuid}@${dial.host}:${dial.port}?${params}#${encodeURIComponent(server.name)}`;
}

export function trojanLink(server: ServerSpec, dial: Dial): string {
  const params = query(transportParams(server));
  return `trojan://${encodeURIComponent(server.password)}@${dial.host}:${dial.port}?${params}#${encodeURIComponent(server.name)}`;
}

export function shadowsocksLink(server: ServerSpec, dial: Dial): string {
  return `ss://${base64Url(`${server.ssMethod}:${server.password}`)}@${dial.host}:${dial.port}#${encodeURIComponent(server.name)}`;
}

export function shareLink(server: ServerSpec, dial: Dial): string {
  switch (server.protocol) {
    case 'vmess':
      return vmessLink(server, dial);
    case 'vless':
      return vlessLink(server, dial);
    case 'trojan':
      return trojanLink(server, dial);
    case 'shadowsocks':
      return shadowsocksLink(server, dial);
  }
}
