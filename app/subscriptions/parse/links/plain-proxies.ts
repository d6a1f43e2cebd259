import type { HttpEndpoint, ParsedServer, SocksEndpoint, WireguardEndpoint } from '../../../../shared/domain/server';
import { buildSecurity, echConfigListOf, noSecurity, noStreamTransport } from '../stream';
import { decodeBase64Bytes, decodeBase64Text, decodeEscapes, isTruthy, splitList } from '../text';
import { checkHost, checkPort, checkWireguardKey, reject } from '../validate';
import { certificateCheckParams, decodedUserinfo, linkName, type Note } from './common';
import { type LinkParts, param, paramIn, splitLink } from './split';

/**
 * `wireguard://privateKey@host:port?publickey=…&address=10.0.0.2/32,fd00::2/128&reserved=1,2,3
 * &mtu=1280&presharedkey=…#name` (also `wg://`). Addresses without a prefix get /32 or /128.
 */
/** The spellings of the peer's public key: Hiddify writes `peer_pk` (also `peerpublickey`, `pub`). */
const WIREGUARD_PUBLIC_KEY = ['publickey', 'public_key', 'peer_public_key', 'pbk', 'peer_pk', 'peerpublickey', 'pub'];

export function parseWireguard(line: string): ParsedServer {
  const parts = splitLink(line) ?? reject('wireguard: not a link');
  const q = parts.query;
  // Hiddify writes the keys as `pk` / `peer_pk` (also `peerpublickey`, `pub`) and `local_address`.
  const privateKey = checkWireguardKey('wireguard', 'private key', decodedUserinfo(parts) || param(q, 'privatekey', 'private_key', 'pk'));
  const publicKey = checkWireguardKey('wireguard', 'public key (publickey)', paramIn(q, WIREGUARD_PUBLIC_KEY));
  const address = checkHost('wireguard', parts.host);
  const port = checkPort('wireguard', parts.port);
  const amnezia = amneziaWgProblem({
    enabled: param(q, 'enable_amnezia'),
    jc: param(q, 'jc', 'junk_packet_count'),
    s1: param(q, 's1', 'init_packet_junk_size'),
    s2: param(q, 's2', 'response_packet_junk_size'),
    h1: param(q, 'h1', 'init_packet_magic_header'),
    h2: param(q, 'h2', 'response_packet_magic_header'),
    h3: param(q, 'h3', 'underload_packet_magic_header'),
    h4: param(q, 'h4', 'transport_packet_magic_header'),
  });
  if (amnezia) return reject(amnezia);
  const localAddresses = wireguardAddresses(param(q, 'address', 'ip', 'local_address', 'localaddress'));
  if (localAddresses.length === 0) return reject('wireguard: missing address (the tunnel IP this side uses)');
  const endpoint: WireguardEndpoint = {
    protocol: 'wireguard',
    address,
    port,
    privateKey,
    publicKey,
    localAddresses,
    transport: noStreamTransport(),
    security: noSecurity(),
  };
  const psk = param(q, 'presharedkey', 'pre_shared_key', 'psk');
  if (psk) endpoint.preSharedKey = checkWireguardKey('wireguard', 'pre-shared key', psk);
  const reserved = reservedBytes(param(q, 'reserved'));
  if (reserved) endpoint.reserved = reserved;
  const mtu = Number(param(q, 'mtu'));
  if (Number.isInteger(mtu) && mtu >= 576 && mtu <= 65535) endpoint.mtu = mtu;
  return { name: linkName(parts.fragment, address, port), ...endpoint };
}

/**
 * An AmneziaWG server, which plain WireGuard cannot reach: its junk packets (jc, s1, s2) and magic
 * headers (h1–h4 other than WireGuard's own 1–4) change the handshake, and neither Xray nor
 * sing-box speaks it. Refused with that reason rather than imported to fail every handshake.
 * Throne writes the same fields by long names and `enable_amnezia`.
 */
export function amneziaWgProblem(fields: { enabled?: unknown; jc?: unknown; s1?: unknown; s2?: unknown; h1?: unknown; h2?: unknown; h3?: unknown; h4?: unknown }): string | null {
  const number = (value: unknown) => (value === undefined || value === null || value === '' ? 0 : Number(value));
  const headers = [fields.h1, fields.h2, fields.h3, fields.h4].map(number);
  const changed =
    isTruthy(fields.enabled) ||
    number(fields.jc) > 0 ||
    number(fields.s1) > 0 ||
    number(fields.s2) > 0 ||
    headers.some((value, i) => value !== 0 && value !== i + 1);
  return changed ? 'wireguard: an AmneziaWG server (junk packets or magic headers), which neither Xray nor sing-box can reach' : null;
}

/**
 * "10.0.0.2/32, fd00::2" → CIDR list; brackets dropped; a bare address gets /32 or /128. Throne
 * joins the addresses with `-` instead (no address has one).
 */
export function wireguardAddresses(value: unknown): string[] {
  const items = Array.isArray(value) ? value.map(String) : typeof value === 'string' ? value.split(/[,-]/) : [];
  return items
    .map((item) => item.trim().replace(/^\[|\]$/g, ''))
    .filter((item) => item.length > 0 && /^[0-9a-fA-F:.]+(\/\d{1,3})?$/.test(item))
    .map((item) => (item.includes('/') ? item : `${item}/${item.includes(':') ? 128 : 32}`));
}

/** "1,2,3" (Throne: "1-2-3") or base64 of three bytes, or an array of numbers → three bytes; otherwise undefined. */
export function reservedBytes(value: unknown): number[] | undefined {
  let bytes: number[] | undefined;
  if (Array.isArray(value)) bytes = value.map(Number);
  else if (typeof value === 'string' && /^\s*\d{1,3}\s*([,-]\s*\d{1,3}\s*)*$/.test(value)) bytes = value.split(/[,-]/).map((v) => Number(v.trim()));
  else if (typeof value === 'string' && value.trim() !== '') {
    const decoded = decodeBase64Bytes(value.trim());
    bytes = decoded ? [...decoded] : undefined;
  }
  if (!bytes || bytes.length !== 3 || bytes.some((b) => !Number.isInteger(b) || b < 0 || b > 255)) return undefined;
  return bytes;
}

/** User info as `user:pass` (percent-encoded) or base64 of it; a lone name is a user without password. */
function credentials(parts: LinkParts): { username?: string; password?: string } {
  if (parts.userinfo === null || parts.userinfo === '') return {};
  let text = decodeEscapes(parts.userinfo, 'user info');
  if (!text.includes(':')) {
    // v2rayN writes base64(user:pass), its padding often percent-encoded (`...A%3D%3D`).
    const decoded = decodeBase64Text(text);
    if (decoded !== null && decoded.includes(':')) text = decoded;
  }
  const colon = text.indexOf(':');
  const username = colon >= 0 ? text.slice(0, colon) : text;
  const password = colon >= 0 ? text.slice(colon + 1) : '';
  const out: { username?: string; password?: string } = {};
  if (username) out.username = username;
  if (password) out.password = password;
  return out;
}

/**
 * `socks://base64(user:pass)@host:port#name`, `socks5://user:pass@host:port` (port 1080 by default).
 * `tls=1` (Shadowrocket, and panels that put stunnel in front of a SOCKS server) is SOCKS inside
 * TLS, with `sni` / `peer` and `allowInsecure`: kept as the server's TLS, which Xray and v2ray
 * run (a socks outbound's streamSettings) and the core check refuses where a core cannot. Read as
 * plain SOCKS it would send the credentials in the clear to a port that expects a TLS handshake.
 */
export function parseSocks(line: string, note: Note = () => undefined): ParsedServer {
  const parts = splitLink(line) ?? reject('socks: not a link');
  const address = checkHost('socks', parts.host);
  const port = checkPort('socks', parts.port, 1080);
  const q = parts.query;
  const tls = isTruthy(param(q, 'tls', 'over-tls')) || param(q, 'security')?.toLowerCase() === 'tls';
  const security = tls
    ? buildSecurity('socks', 'tls', {
        sni: param(q, 'sni', 'peer', 'servername'),
        alpn: splitList(param(q, 'alpn') ?? ''),
        fingerprint: param(q, 'fp', 'fingerprint'),
        allowInsecure: isTruthy(param(q, 'allowinsecure', 'insecure', 'allow_insecure', 'skip-cert-verify')),
        ...certificateCheckParams(q),
        ech: echConfigListOf('socks', q.get('ech'), 'tls', note),
      })
    : noSecurity();
  const endpoint: SocksEndpoint = { protocol: 'socks', address, port, ...credentials(parts), transport: noStreamTransport(), security };
  return { name: linkName(parts.fragment, address, port), ...endpoint };
}

/**
 * `http://user:pass@host:port#name` / `https://…` as a proxy. Only an entry of a list of links
 * gets here; a URL with a path or a query is a subscription or web address, not a proxy, and is
 * rejected saying so.
 */
export function parseHttpProxy(line: string): ParsedServer {
  const parts = splitLink(line) ?? reject('http: not a link');
  const label = parts.scheme;
  if ((parts.path !== '' && parts.path !== '/') || parts.query.size > 0) {
    return reject(`${label}: a web or subscription address, not a proxy (add it as a subscription URL instead)`);
  }
  // A bare https://site.example line (providers add their web site or channel) is no proxy: a
  // proxy link names its port or its credentials.
  if (!parts.port && !parts.userinfo) return reject(`${label}: a web address without a port, not a proxy`);
  const address = checkHost(label, parts.host);
  const tls = parts.scheme === 'https';
  const port = checkPort(label, parts.port, tls ? 443 : 80);
  const security = tls ? buildSecurity(label, 'tls', {}) : noSecurity();
  const endpoint: HttpEndpoint = { protocol: 'http', address, port, ...credentials(parts), transport: noStreamTransport(), security };
  return { name: linkName(parts.fragment, address, port), ...endpoint };
}
