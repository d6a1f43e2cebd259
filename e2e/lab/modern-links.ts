/**
 * Share links of the modern block as panels and clients write them (3x-ui / Marzban for the
 * Xray kinds, Hysteria's own URIs for v2 and v1, v2rayN's TUIC and WireGuard links, Shadowrocket's
 * ShadowTLS form, SIP002 with plain user info for Shadowsocks 2022, anytls-go's and Mihomo's
 * AnyTLS link). The host:port is the relay's front; a
 * TLS server's link carries its certificate's pin (`pcs`, Hysteria's `pinSHA256`) because Xray
 * ≥ 26.2.6 verifies certificates, and `allowInsecure` too for cores that cannot pin.
 */
import { base64Url, type Dial } from './share-links';
import {
  HYSTERIA_V1_MBPS,
  REALITY_SERVER_NAME,
  SHADOWTLS_INNER_METHOD,
  SHADOWTLS_SERVER_NAME,
  SS2022_METHOD,
  WIREGUARD_CLIENT_ADDRESS,
  type ModernServerSpec,
} from './modern-world';
import { TLS_SERVER_NAME } from './world';

export interface ModernDial extends Dial {
  /** A hopping range's ports (first to last), when the relay listens on several. */
  ports?: readonly number[];
}

function query(params: [string, string][]): string {
  return params.map(([k, v]) => `${k}=${encodeURIComponent(v)}`).join('&');
}

const named = (s: ModernServerSpec) => `#${encodeURIComponent(s.name)}`;
const at = (dial: Dial) => `${dial.host}:${dial.port}`;
const pinned = (pin: string): [string, string][] => [['sni', TLS_SERVER_NAME], ['fp', 'chrome'], ['pcs', pin], ['allowInsecure', '1']];

/** `pin` is the lower-case hex SHA-256 of the certificate the TLS servers present. */
export function modernShareLink(s: ModernServerSpec, dial: ModernDial, pin: string): string {
  switch (s.kind) {
    case 'vless-reality-vision':
      return `vless://${s.uuid}@${at(dial)}?${query([
        ['encryption', 'none'], ['flow', 'xtls-rprx-vision'], ['security', 'reality'], ['sni', REALITY_SERVER_NAME], ['fp', 'chrome'],
        ['pbk', s.reality.publicKey], ['sid', s.reality.shortId], ['spx', '/'], ['type', 'tcp'], ['headerType', 'none'],
      ])}${named(s)}`;
    case 'vless-xhttp':
      return `vless://${s.uuid}@${at(dial)}?${query([['encryption', 'none'], ['security', 'none'], ['type', 'xhttp'], ['path', s.path], ['mode', 'auto']])}${named(s)}`;
    case 'vless-grpc-tls':
      return `vless://${s.uuid}@${at(dial)}?${query([['encryption', 'none'], ['security', 'tls'], ...pinned(pin), ['alpn', 'h2'], ['type', 'grpc'], ['serviceName', s.serviceName], ['mode', 'gun']])}${named(s)}`;
    case 'vmess-httpupgrade': {
      const body = { v: '2', ps: s.name, add: dial.host, port: String(dial.port), id: s.uuid, aid: '0', scy: 'auto', net: 'httpupgrade', type: 'none', host: '', path: s.path, tls: '', sni: '' };
      return `vmess://${Buffer.from(JSON.stringify(body), 'utf8').toString('base64')}`;
    }
    case 'vless-httpupgrade':
      return `vless://${s.uuid}@${at(dial)}?${query([['encryption', 'none'], ['security', 'none'], ['type', 'httpupgrade'], ['path', s.path]])}${named(s)}`;
    case 'trojan-grpc-tls':
      return `trojan://${encodeURIComponent(s.password)}@${at(dial)}?${query([['security', 'tls'], ...pinned(pin), ['alpn', 'h2'], ['type', 'grpc'], ['serviceName', s.serviceName], ['mode', 'gun']])}${named(s)}`;
    case 'hysteria2-salamander-hopping': {
      // Hysteria's own URI: the hopping range in the authority ("443,20000-30000" style).
      const ports = dial.ports && dial.ports.length > 1 ? `${dial.ports[0]}-${dial.ports[dial.ports.length - 1]}` : String(dial.port);
      return `hysteria2://${encodeURIComponent(s.password)}@${dial.host}:${ports}/?${query([
        ['sni', TLS_SERVER_NAME], ['obfs', 'salamander'], ['obfs-password', s.obfsPassword], ['pinSHA256', pin], ['insecure', '1'],
      ])}${named(s)}`;
    }
    case 'tuic-v5':
      return `tuic://${s.uuid}:${encodeURIComponent(s.password)}@${at(dial)}?${query([
        ['congestion_control', 'bbr'], ['udp_relay_mode', 'native'], ['alpn', 'h3'], ['sni', TLS_SERVER_NAME], ['allow_insecure', '1'],
      ])}${named(s)}`;
    case 'wireguard':
      return `wireguard://${encodeURIComponent(s.wireguard.client.privateKey)}@${at(dial)}?${query([
        ['publickey', s.wireguard.server.publicKey], ['address', WIREGUARD_CLIENT_ADDRESS], ['mtu', '1420'],
      ])}${named(s)}`;
    case 'shadowtls-v3': {
      // Shadowrocket's form: the ShadowTLS layer as base64 JSON in `shadow-tls`.
      const layer = Buffer.from(JSON.stringify({ host: SHADOWTLS_SERVER_NAME, password: s.shadowTlsPassword, version: '3' }), 'utf8').toString('base64');
      return `ss://${base64Url(`${SHADOWTLS_INNER_METHOD}:${s.password}`)}@${at(dial)}?${query([['shadow-tls', layer]])}${named(s)}`;
    }
    case 'anytls':
      return `anytls://${encodeURIComponent(s.password)}@${at(dial)}/?${query([['sni', TLS_SERVER_NAME], ['fp', 'chrome'], ['pcs', pin], ['insecure', '1']])}${named(s)}`;
    case 'hysteria-v1':
      return `hysteria://${at(dial)}?${query([
        ['protocol', 'udp'], ['auth', s.password], ['peer', TLS_SERVER_NAME], ['insecure', '1'], ['pcs', pin],
        ['upmbps', String(HYSTERIA_V1_MBPS)], ['downmbps', String(HYSTERIA_V1_MBPS)], ['alpn', 'hysteria'], ['obfs', 'xplus'], ['obfsParam', s.obfsPassword],
      ])}${named(s)}`;
    case 'shadowsocks-2022':
      // SIP002 asks for plain, percent-encoded user info with 2022 ciphers (their keys are base64).
      return `ss://${SS2022_METHOD}:${encodeURIComponent(s.ss2022Key)}@${at(dial)}${named(s)}`;
  }
}
