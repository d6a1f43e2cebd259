import fc from 'fast-check';
import { isUnspecifiedAddress } from '../../../app/subscriptions/parse/validate';

/**
 * Servers as a provider would describe them, and the share links / config entries they are
 * written as. Every value here is valid, so an unmutated rendering must parse to exactly this
 * server: that is how the generators are checked, and how a parser that refuses valid input is
 * caught.
 */
export type LinkScheme = 'vmess' | 'vless' | 'trojan' | 'ss' | 'hysteria2' | 'tuic' | 'wireguard' | 'socks' | 'http';
export const LINK_SCHEMES: readonly LinkScheme[] = ['vmess', 'vless', 'trojan', 'ss', 'hysteria2', 'tuic', 'wireguard', 'socks', 'http'];

export type NetworkName = 'tcp' | 'ws' | 'grpc' | 'h2' | 'httpupgrade' | 'xhttp' | 'kcp' | 'quic';
const NETWORKS: readonly NetworkName[] = ['tcp', 'ws', 'grpc', 'h2', 'httpupgrade', 'xhttp', 'kcp', 'quic'];
const SS_METHODS = ['aes-128-gcm', 'aes-256-gcm', 'chacha20-ietf-poly1305', 'xchacha20-ietf-poly1305', '2022-blake3-aes-128-gcm', '2022-blake3-aes-256-gcm', 'none'] as const;

export interface ServerSpec {
  scheme: LinkScheme;
  /** Picks one of the scheme's link shapes (vmess JSON / URL / Shadowrocket, ss SIP002 / legacy, …). */
  variant: number;
  host: string;
  /** How the host is written in a URL (IPv6 in brackets). */
  urlHost: string;
  port: number;
  uuid: string;
  password: string;
  name: string;
  network: NetworkName;
  security: 'none' | 'tls' | 'reality';
  sni: string;
  path: string;
  hostHeader: string;
  ssMethod: (typeof SS_METHODS)[number];
  /** Base64 keys: WireGuard private / public, REALITY public key, 2022 ciphers. */
  key32a: string;
  key32b: string;
  key16: string;
  alpn: string[];
  tag: string;
}

/** Where a server can be: not an unspecified address (0.0.0.0/8, ::), which panels use for notices. */
const hostArb = fc.oneof(
  { weight: 4, arbitrary: fc.domain() },
  { weight: 2, arbitrary: fc.ipV4().filter((ip) => !isUnspecifiedAddress(ip)) },
  { weight: 1, arbitrary: fc.ipV6().filter((ip) => !isUnspecifiedAddress(ip)) },
);

/** Passwords with the characters links must escape: @ : / ? # % + = & and non-ASCII. */
const passwordArb = fc.string({
  unit: fc.constantFrom(...'abcXYZ0189@:/?#%+=&-_.~!$ é中🇮🇷'.split(/(?:)/u)),
  minLength: 1,
  maxLength: 24,
}).filter((p) => p.trim() !== '');

const nameArb = fc.oneof(
  fc.constantFrom('🇮🇷 ایران - همراه اول', '🇷🇺 Москва | Быстрый ⚡', 'HK 01', 'DE [ws] #2', '中国 联通', ''),
  fc.string({ unit: 'grapheme', maxLength: 30 }),
);

const base64Key = (bytes: number) => fc.uint8Array({ minLength: bytes, maxLength: bytes }).map((b) => Buffer.from(b).toString('base64'));

export const serverSpecArb: fc.Arbitrary<ServerSpec> = fc
  .record({
    scheme: fc.constantFrom(...LINK_SCHEMES),
    variant: fc.nat({ max: 5 }),
    host: hostArb,
    port: fc.integer({ min: 1, max: 65535 }),
    uuid: fc.uuid(),
    password: passwordArb,
    name: nameArb,
    network: fc.constantFrom(...NETWORKS),
    security: fc.constantFrom('none', 'tls', 'reality'),
    sni: fc.oneof(fc.constant(''), fc.domain()),
    path: fc.oneof(fc.constant(''), fc.constant('/ws?ed=2048'), fc.webPath()),
    hostHeader: fc.oneof(fc.constant(''), fc.domain()),
    ssMethod: fc.constantFrom(...SS_METHODS),
    key32a: base64Key(32),
    key32b: base64Key(32),
    key16: base64Key(16),
    alpn: fc.subarray(['h2', 'http/1.1', 'h3']),
    tag: fc.oneof(fc.constantFrom('proxy', 'out-1', 'hop', 'direct'), fc.string({ minLength: 1, maxLength: 12 })),
  })
  .map((s) => ({ ...s, host: s.host.toLowerCase(), urlHost: s.host.includes(':') ? `[${s.host.toLowerCase()}]` : s.host.toLowerCase() }));

const pct = encodeURIComponent;
const b64 = (text: string) => Buffer.from(text, 'utf8').toString('base64');
const b64url = (text: string) => Buffer.from(text, 'utf8').toString('base64url');

/** The stream parameters vless / trojan / URL-style vmess links carry. */
function streamQuery(s: ServerSpec, defaultTls: boolean): string[] {
  const q = [`type=${s.network}`];
  if (s.security !== 'none' || defaultTls) q.push(`security=${s.security === 'none' ? 'tls' : s.security}`);
  if (s.sni) q.push(`sni=${pct(s.sni)}`);
  if (s.alpn.length > 0) q.push(`alpn=${pct(s.alpn.join(','))}`);
  if (s.security === 'reality') q.push(`pbk=${pct(s.key32a)}`, 'sid=6ba85179e30d4fc2', 'fp=chrome');
  if (s.path) q.push(s.network === 'grpc' ? `serviceName=${pct(s.path)}` : `path=${pct(s.path)}`);
  if (s.hostHeader) q.push(`host=${pct(s.hostHeader)}`);
  return q;
}

function ssLink(s: ServerSpec): string {
  const password = s.ssMethod.startsWith('2022-') ? (s.ssMethod.includes('128') ? s.key16 : s.key32a) : s.ssMethod === 'none' ? '' : s.password;
  const userinfo = `${s.ssMethod}:${password}`;
  const tail = `#${pct(s.name)}`;
  switch (s.variant % 3) {
    case 0:
      return `ss://${b64url(userinfo)}@${s.urlHost}:${s.port}${tail}`;
    case 1:
      return `ss://${s.ssMethod}:${pct(password)}@${s.urlHost}:${s.port}/?plugin=${pct('obfs-local;obfs=http;obfs-host=cdn.example.com')}${tail}`;
    default:
      return `ss://${b64(`${userinfo}@${s.urlHost}:${s.port}`)}${tail}`;
  }
}

function vmessLink(s: ServerSpec): string {
  switch (s.variant % 3) {
    case 0: {
      const numbersAsStrings = s.variant % 2 === 0;
      const json = {
        v: '2',
        ps: s.name,
        add: s.host,
        port: numbersAsStrings ? String(s.port) : s.port,
        id: s.uuid,
        aid: numbersAsStrings ? '0' : 0,
        scy: 'auto',
        net: s.network,
        type: 'none',
        host: s.hostHeader,
        path: s.path,
        tls: s.security === 'none' ? '' : 'tls',
        sni: s.sni,
        alpn: s.alpn.join(','),
      };
      return `vmess://${b64(JSON.stringify(json))}`;
    }
    case 1:
      return `vmess://${s.uuid}@${s.urlHost}:${s.port}?${streamQuery({ ...s, security: s.security === 'reality' ? 'tls' : s.security }, false).join('&')}&encryption=auto#${pct(s.name)}`;
    default:
      return `vmess://${b64url(`auto:${s.uuid}@${s.host}:${s.port}`)}?remarks=${pct(s.name || 'x')}&obfs=websocket&path=${pct(s.path || '/')}&tls=${s.security === 'none' ? 0 : 1}`;
  }
}

/** One valid share link for the spec, in one of its scheme's shapes. */
export function shareLink(s: ServerSpec): string {
  const name = `#${pct(s.name)}`;
  const at = `${s.urlHost}:${s.port}`;
  switch (s.scheme) {
    case 'vmess':
      return vmessLink(s);
    case 'vless':
      return `vless://${s.uuid}@${at}?${[...streamQuery(s, false), 'encryption=none', ...(s.variant % 2 ? ['flow=xtls-rprx-vision'] : [])].join('&')}${name}`;
    case 'trojan':
      return `trojan://${pct(s.password)}@${at}?${streamQuery({ ...s, security: s.security === 'none' ? 'tls' : s.security }, true).join('&')}${name}`;
    case 'ss':
      return ssLink(s);
    case 'hysteria2':
      return `${s.variant % 2 ? 'hy2' : 'hysteria2'}://${pct(s.password)}@${at}/?sni=${pct(s.sni || s.host)}&insecure=${s.variant % 2}${s.variant > 2 ? `&obfs=salamander&obfs-password=${pct(s.password)}` : ''}${name}`;
    case 'tuic':
      return `tuic://${s.uuid}:${pct(s.password)}@${at}?congestion_control=bbr&udp_relay_mode=native&alpn=h3${s.sni ? `&sni=${pct(s.sni)}` : ''}${name}`;
    case 'wireguard':
      return `${s.variant % 2 ? 'wg' : 'wireguard'}://${pct(s.key32a)}@${at}?publickey=${pct(s.key32b)}&address=${pct('10.7.0.2/32,fd00::2/128')}&mtu=1280${s.variant > 2 ? `&reserved=1,2,3&presharedkey=${pct(s.key32b)}` : ''}${name}`;
    case 'socks':
      return s.variant % 2 ? `socks://${b64(`user:${s.password}`)}@${at}${name}` : `socks5://user:${pct(s.password)}@${at}${name}`;
    case 'http':
      return `${s.variant % 2 ? 'https' : 'http'}://user:${pct(s.password)}@${at}${name}`;
  }
}

/** The protocol name the app stores for a link scheme. */
export function protocolOf(scheme: LinkScheme): string {
  return scheme === 'ss' ? 'shadowsocks' : scheme;
}

export const validLinkArb: fc.Arbitrary<{ spec: ServerSpec; link: string }> = serverSpecArb.map((spec) => ({ spec, link: shareLink(spec) }));
