import type { Network, Security, SecurityType, Transport } from '../../../shared/domain/server';
import { checkCertPins, checkMldsa65Key, checkRealityPublicKey, reject, shownHost } from './validate';

/**
 * Transport and security values as the v2ray family's share links and configs spell them, mapped
 * to the app's names. Shared by the link, Xray, sing-box and Clash parsers.
 */
const NETWORK_ALIASES: Record<string, Network> = {
  tcp: 'tcp',
  raw: 'tcp',
  none: 'tcp',
  ws: 'ws',
  websocket: 'ws',
  grpc: 'grpc',
  gun: 'grpc',
  h2: 'h2',
  http: 'h2',
  httpupgrade: 'httpupgrade',
  xhttp: 'xhttp',
  splithttp: 'xhttp',
  kcp: 'kcp',
  mkcp: 'kcp',
  quic: 'quic',
};

export function networkOf(label: string, raw: string | undefined): Network {
  const key = (raw ?? '').trim().toLowerCase();
  if (key === '') return 'tcp';
  const network = NETWORK_ALIASES[key];
  if (!network) return reject(`${label}: unknown transport "${key.slice(0, 20)}"`);
  return network;
}

export function securityTypeOf(label: string, raw: string | undefined, fallback: SecurityType): SecurityType {
  const key = (raw ?? '').trim().toLowerCase();
  if (key === '') return fallback;
  if (key === 'none' || key === 'false' || key === '0') return 'none';
  if (key === 'xtls') return reject(`${label}: security "xtls" (XTLS v1) is obsolete: Xray 1.8 removed it; the server must offer TLS or REALITY`);
  if (key === 'tls' || key === 'true' || key === '1') return 'tls';
  if (key === 'reality') return 'reality';
  return reject(`${label}: unknown security "${key.slice(0, 20)}"`);
}

/** Fields a transport can carry, already picked from the source's own names. */
export interface TransportFields {
  path?: string;
  host?: string;
  serviceName?: string;
  /** grpc: "multi" / "gun"; xhttp: the mode; tcp / kcp / quic: the header type. */
  mode?: string;
  headerType?: string;
  seed?: string;
  quicSecurity?: string;
  quicKey?: string;
  /** xhttp: the `extra` object, already checked by xhttpExtraOf. */
  xhttpExtra?: Record<string, unknown>;
}

const XHTTP_EXTRA_MAX_CHARS = 16_384;
const XHTTP_EXTRA_MAX_DEPTH = 8;

/**
 * xhttp's `extra` (a JSON object, or its text in a share link) as the core may be given it, with
 * what a provider has no business choosing on the user's machine taken out: any setting that
 * names a local file (`certificateFile`, `keyFile`, …) or inline certificates, and socket options
 * (`sockopt`: interface, marks, a dialer proxy through the user's other outbounds). Undefined
 * when there is nothing usable; `note` hears what was dropped.
 */
export function xhttpExtraOf(raw: unknown, note: (text: string) => void): Record<string, unknown> | undefined {
  let value = raw;
  if (typeof raw === 'string') {
    if (raw.trim() === '') return undefined;
    if (raw.length > XHTTP_EXTRA_MAX_CHARS) return void note(`xhttp extra settings longer than ${XHTTP_EXTRA_MAX_CHARS} characters are ignored`);
    try {
      value = JSON.parse(raw);
    } catch {
      return void note('xhttp extra settings are not valid JSON and are ignored');
    }
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined;
  const dropped = new Set<string>();
  let tooDeep = false;
  const clean = (v: unknown, depth: number): unknown => {
    if (v === null || typeof v !== 'object') return v;
    if (depth >= XHTTP_EXTRA_MAX_DEPTH) {
      tooDeep = true;
      return undefined;
    }
    if (Array.isArray(v)) return v.map((item) => clean(item, depth + 1));
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(v)) {
      if (/file$/i.test(key) || key === 'certificates' || key === 'sockopt' || key === '__proto__') {
        dropped.add(key);
        continue;
      }
      const cleaned = clean(item, depth + 1);
      if (cleaned !== undefined) out[key] = cleaned;
    }
    return out;
  };
  // Cleaned first: its depth is bounded, so measuring it cannot overflow the stack.
  const result = clean(value, 0) as Record<string, unknown>;
  if (JSON.stringify(result).length > XHTTP_EXTRA_MAX_CHARS) return void note(`xhttp extra settings longer than ${XHTTP_EXTRA_MAX_CHARS} characters are ignored`);
  if (dropped.size > 0) note(`xhttp extra settings: ${[...dropped].join(', ')} ignored (not a provider's to set)`);
  if (tooDeep) note(`xhttp extra settings: what is nested deeper than ${XHTTP_EXTRA_MAX_DEPTH} levels is ignored`);
  return Object.keys(result).length > 0 ? result : undefined;
}

/** Builds a Transport with only the fields that mean something for its network. */
export function buildTransport(network: Network, f: TransportFields): Transport {
  const t: Transport = { network };
  switch (network) {
    case 'tcp':
      if (f.headerType && f.headerType !== 'none') {
        setField(t, 'headerType', f.headerType);
        setField(t, 'path', f.path);
        setField(t, 'host', f.host);
      }
      break;
    case 'ws':
    case 'httpupgrade':
      checkEarlyData(network, f.path);
      setField(t, 'path', f.path);
      setField(t, 'host', f.host);
      break;
    case 'h2':
      setField(t, 'path', f.path);
      setField(t, 'host', f.host);
      break;
    case 'xhttp':
      setField(t, 'path', f.path);
      setField(t, 'host', f.host);
      setField(t, 'mode', f.mode);
      if (f.xhttpExtra && Object.keys(f.xhttpExtra).length > 0) t.xhttpExtra = f.xhttpExtra;
      break;
    case 'grpc':
      setField(t, 'serviceName', f.serviceName ?? f.path);
      if (f.mode?.toLowerCase() === 'multi') t.grpcMultiMode = true;
      // The :authority, where a CDN needs one other than the TLS name.
      setField(t, 'host', f.host);
      break;
    case 'kcp':
      if (f.headerType && f.headerType !== 'none') setField(t, 'headerType', f.headerType);
      setField(t, 'seed', f.seed);
      break;
    case 'quic':
      if (f.headerType && f.headerType !== 'none') setField(t, 'headerType', f.headerType);
      if (f.quicSecurity && f.quicSecurity !== 'none') setField(t, 'quicSecurity', f.quicSecurity);
      setField(t, 'quicKey', f.quicKey);
      break;
  }
  return t;
}

/** A transport field, when it has a value (a function of `t` rather than a closure over it: no closure per link). */
function setField<K extends keyof Transport>(t: Transport, key: K, value: Transport[K] | undefined): void {
  if (value !== undefined && value !== '') t[key] = value;
}

/** The header Xray sends WebSocket early data in (and the only one a `?ed=` path asks for). */
const EARLY_DATA_HEADER = 'sec-websocket-protocol';

/**
 * A WebSocket path with the early data that Mihomo (`max-early-data`, `early-data-header-name`)
 * and sing-box (`max_early_data`, `early_data_header_name`) give as fields of their own, in the
 * form the share links and the cores' own configs use: `?ed=N` in the path, sent in
 * Sec-WebSocket-Protocol. Early data in another header, or in the path (no header named: v2fly's
 * way, which Xray's servers do not read), is left out with a note: the connection works without
 * it, one round trip slower.
 */
export function pathWithEarlyData(label: string, path: string, maxEarlyData: unknown, headerName: unknown, note: (text: string) => void): string {
  const bytes = typeof maxEarlyData === 'number' ? maxEarlyData : typeof maxEarlyData === 'string' && /^\d{1,9}$/.test(maxEarlyData.trim()) ? Number(maxEarlyData) : 0;
  if (!Number.isInteger(bytes) || bytes <= 0 || /[?&]ed=/.test(path)) return path;
  const header = typeof headerName === 'string' ? headerName.trim() : '';
  if (header.toLowerCase() !== EARLY_DATA_HEADER) {
    note(`${label}: WebSocket early data ${header ? `in the header "${header.slice(0, 40)}"` : 'in the path'} is not what Xray sends (Sec-WebSocket-Protocol): left out, the connection opens without it`);
    return path;
  }
  const base = path || '/';
  return `${base}${base.includes('?') ? '&' : '?'}ed=${bytes}`;
}

/**
 * WebSocket early data is asked for as `?ed=2048` in the path, and cores read only a byte count
 * there: "ed=abc" is a broken link, said as such rather than sent on to the core.
 */
function checkEarlyData(network: Network, path: string | undefined): void {
  // `path.split('?')[1]`, the text between the first `?` and the next, without the array.
  const queryAt = path === undefined ? -1 : path.indexOf('?');
  if (queryAt < 0) return;
  const nextAt = (path as string).indexOf('?', queryAt + 1);
  const query = (path as string).slice(queryAt + 1, nextAt < 0 ? undefined : nextAt);
  if (!query) return;
  const ed = earlyDataParam(query);
  if (ed !== null && !/^\d{1,9}$/.test(ed.trim())) {
    reject(`${network}: the early-data size in the path (ed=${ed.slice(0, 20)}) is not a number`);
  }
}

/**
 * `ed` of a path's query as URLSearchParams reads it (the first one, `+` a space, escapes
 * decoded). A query with nothing to decode, the usual `ed=2048`, is read without building one.
 */
function earlyDataParam(query: string): string | null {
  if (query.includes('%') || query.includes('+') || query.startsWith('?')) return new URLSearchParams(query).get('ed');
  // Pairs found by index, as in rawQueryValues: only the value of `ed` is sliced out.
  for (let start = 0; ; ) {
    const amp = query.indexOf('&', start);
    const pairEnd = amp < 0 ? query.length : amp;
    const eq = query.indexOf('=', start);
    const keyEnd = eq >= 0 && eq < pairEnd ? eq : pairEnd;
    if (keyEnd - start === 2 && query.startsWith('ed', start)) return keyEnd < pairEnd ? query.slice(keyEnd + 1, pairEnd) : '';
    if (amp < 0) return null;
    start = amp + 1;
  }
}

export interface SecurityFields {
  sni?: string;
  alpn?: string[];
  fingerprint?: string;
  allowInsecure?: boolean;
  /** Certificate pins as the source writes them (checked by checkCertPins). */
  pinnedCertSha256?: string;
  /** The name to verify the certificate against instead of the SNI. */
  verifyName?: string;
  /** An ECHConfigList already checked by echConfigListOf. */
  ech?: string;
  publicKey?: string;
  shortId?: string;
  spiderX?: string;
  mldsa65Verify?: string;
}

/**
 * Builds a Security; REALITY without a public key, or with one that is no X25519 key, is rejected
 * (the core cannot dial it), so is a certificate pin that is no SHA-256. Pins and the name to verify belong to TLS only: REALITY
 * authenticates the server by its public key.
 */
export function buildSecurity(label: string, type: SecurityType, f: SecurityFields): Security {
  if (type === 'none') return { type };
  const s: Security = { type };
  if (f.sni) s.sni = f.sni;
  if (f.alpn && f.alpn.length > 0) s.alpn = f.alpn;
  if (f.fingerprint && f.fingerprint !== 'none') s.fingerprint = f.fingerprint;
  if (f.allowInsecure) s.allowInsecure = true;
  if (type === 'tls') {
    const pins = f.pinnedCertSha256 ? checkCertPins(label, f.pinnedCertSha256) : [];
    if (pins.length) s.pinnedCertSha256 = pins;
    const verifyName = f.verifyName ? checkVerifyName(label, f.verifyName) : '';
    if (verifyName) s.verifyName = verifyName;
    if (f.ech) s.ech = f.ech;
  }
  if (type === 'reality') {
    if (!f.publicKey) return reject(`${label}: REALITY without a public key (pbk)`);
    s.publicKey = checkRealityPublicKey(label, f.publicKey);
    if (f.shortId) s.shortId = f.shortId;
    if (f.spiderX) s.spiderX = f.spiderX;
    if (f.mldsa65Verify) s.mldsa65Verify = checkMldsa65Key(label, f.mldsa65Verify);
  }
  return s;
}

/**
 * Names Xray accepts to verify a certificate by: host names or IP addresses, several joined with
 * `,`. Xray trims each name and skips empty ones, so panels that write "a.example.com,
 * b.example.com" mean two names; they are kept as `a.example.com,b.example.com`.
 */
function checkVerifyName(label: string, raw: string): string {
  const names = raw.split(',').map((name) => name.trim()).filter((name) => name !== '');
  const bad = names.find((name) => !/^[\w.*:-]+$/.test(name));
  if (bad !== undefined) return reject(`${label}: the name to verify the certificate by (vcn) "${shownHost(bad)}" is not a host name`);
  return names.join(',');
}

/** hysteria2, tuic and wireguard have no v2ray-style stream settings; these placeholders say so. */
export const quicTransport = (): Transport => ({ network: 'quic' });
export const noStreamTransport = (): Transport => ({ network: 'tcp' });
export const noSecurity = (): Security => ({ type: 'none' });

/**
 * The ECH config a source gives (a link's `ech=`, Xray's `echConfigList`, sing-box's and Mihomo's
 * config), when a core can use it: a base64 ECHConfigList (its two-byte length, then the configs),
 * as Xray's echConfigList and sing-box's tls.ech take it. Anything else is not applied, and `note`
 * says so, since without ECH the handshake shows the real server name: an empty value or a DNS
 * lookup form (`domain+https://resolver/…`, which would send this machine's queries to a resolver
 * the provider chose), text that is no ECHConfigList, or ECH on a connection without TLS.
 */
export function echConfigListOf(label: string, raw: string | undefined, securityType: SecurityType, note: (text: string) => void): string | undefined {
  if (raw === undefined) return undefined;
  const text = raw.replace(/\s+/g, '');
  const notApplied = (why: string) => void note(`${label}: ECH is not applied (${why}); the TLS handshake shows the server name`);
  if (securityType !== 'tls') return void note(`${label}: ECH is ignored: it belongs to TLS, and this entry uses ${securityType === 'none' ? 'no TLS' : 'REALITY'}`);
  if (text === '') return notApplied('the entry asks to look the ECH config up in DNS, and gives none');
  if (text.includes('://') || text.includes('+http') || text.includes('+udp')) return notApplied('the ECH config is to be looked up through a resolver the provider names');
  const bytes = /^[A-Za-z0-9+/_-]+={0,2}$/.test(text) ? Buffer.from(text.replace(/-/g, '+').replace(/_/g, '/'), 'base64') : null;
  if (!bytes || bytes.length < 6 || bytes.readUInt16BE(0) !== bytes.length - 2) return notApplied('the value is not an ECH config list');
  return bytes.toString('base64');
}
