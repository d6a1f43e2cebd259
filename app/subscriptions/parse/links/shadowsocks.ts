import type { ParsedServer, ShadowsocksEndpoint } from '../../../../shared/domain/server';
import { noSecurity, noStreamTransport } from '../stream';
import { decodeBase64Bytes, decodeBase64Text, decodeEscapes, isTruthy } from '../text';
import { checkHost, checkPort, checkShadowsocksCipher, reject } from '../validate';
import type { Note } from './common';
import { decodeQueryName, linkName, streamFromQuery } from './common';
import { param, parseQuery, rawQueryValues, splitHostPort } from './split';

/**
 * `ss://` in its three shapes:
 * - SIP002 with base64url user info: `ss://base64(method:password)@host:port/?plugin=…#name`;
 * - SIP002 with plain, percent-encoded user info (required for 2022 ciphers, whose password may
 *   be `serverKey:userKey`): `ss://2022-blake3-aes-256-gcm:k1%3D:k2%3D@host:port#name`;
 * - legacy whole-base64: `ss://base64(method:password@host:port)#name`.
 * `?plugin=obfs-local;obfs=http;obfs-host=…` becomes a SIP003 plugin; Shadowrocket's
 * `?obfs=wss&obfsParam=host&path=/p` is the v2ray-plugin it means; `?type=ws&path=…&security=tls`
 * (Xray-style panels) is the core's own stream, as in a vless link; `?shadow-tls=…` the ShadowTLS plugin.
 */
export function parseShadowsocks(line: string, note: Note): ParsedServer {
  let rest = line.slice(line.indexOf('://') + 3);
  let fragment: string | null = null;
  const hashAt = rest.indexOf('#');
  if (hashAt >= 0) {
    fragment = rest.slice(hashAt + 1);
    rest = rest.slice(0, hashAt);
  }
  let queryText = '';
  const queryAt = rest.indexOf('?');
  if (queryAt >= 0) {
    queryText = rest.slice(queryAt + 1);
    rest = rest.slice(0, queryAt);
  }
  // Trailing slashes dropped by index: a regex replace ran over every ss link to find none.
  let end = rest.length;
  while (end > 0 && rest.charCodeAt(end - 1) === 47 /* / */) end--;
  if (end < rest.length) rest = rest.slice(0, end);

  let credentials: string;
  let hostPortText: string;
  if (rest.includes('@')) {
    const at = rest.lastIndexOf('@');
    credentials = userinfoText(rest.slice(0, at));
    const slashAt = rest.indexOf('/', at + 1);
    hostPortText = rest.slice(at + 1, slashAt < 0 ? undefined : slashAt);
  } else {
    const decoded = decodeBase64Text(decodeEscapes(rest, 'base64 payload'));
    if (decoded === null) return reject('ss: neither method:password@host:port nor its base64');
    const text = decoded.trim();
    const at = text.lastIndexOf('@');
    if (at < 0) return reject('ss: the base64 payload is not method:password@host:port');
    credentials = text.slice(0, at);
    hostPortText = text.slice(at + 1).split(/[/?]/, 1)[0] ?? '';
  }

  const colon = credentials.indexOf(':');
  if (colon < 0) return reject('ss: the user info is not method:password');
  const method = credentials.slice(0, colon).trim().toLowerCase();
  const password = credentials.slice(colon + 1);
  checkShadowsocksCipher('ss', method);
  if (password === '' && method !== 'none' && method !== 'plain') return reject('ss: missing password');
  if (method.startsWith('2022-')) checkKeys2022(method, password);

  const { host, port: rawPort } = splitHostPort(hostPortText);
  const address = checkHost('ss', host);
  const port = checkPort('ss', rawPort);
  // Built with its name's place first, the name set last (it reads the final address and port):
  // the order `{ name, ...endpoint }` gave, without copying the endpoint into a second object.
  const endpoint: ShadowsocksEndpoint & { name: string } = {
    name: '',
    protocol: 'shadowsocks',
    address,
    port,
    method,
    password,
    transport: noStreamTransport(),
    security: noSecurity(),
  };
  const query = parseQuery(queryText);
  const plugin = pluginOf(query) ?? shadowTlsOf(query, endpoint);
  if (plugin) endpoint.plugin = plugin;
  else if (query.has('type') || query.has('security')) {
    // Xray-style panels (3x-ui and its forks) put the stream in the query, as for vless.
    const stream = streamFromQuery('ss', query, 'none', note, queryText);
    endpoint.transport = stream.transport;
    endpoint.security = stream.security;
  } else if (query.has('obfs')) note(`ss: obfs "${query.get('obfs')}" is not understood; connecting without a plugin`);
  if (isTruthy(param(query, 'uot', 'udp-over-tcp', 'udp_over_tcp'))) note('ss: UDP over TCP is not applied (the core sends UDP as UDP)');
  // Outline's `prefix` disguises the first bytes as another protocol; the server does not need it.
  if (query.has('prefix')) note('ss: the prefix (Outline\'s disguise of the first bytes) is not applied');
  const remarks = queryText === '' ? undefined : rawQueryValues(queryText).get('remarks');
  const name = fragment === null && remarks ? decodeQueryName(remarks) : '';
  endpoint.name = name || linkName(fragment, endpoint.address, endpoint.port);
  return endpoint;
}

/** SIP002 user info: plain `method:password` (percent-encoded) or base64url of it. */
function userinfoText(raw: string): string {
  const plain = decodeEscapes(raw, 'user info');
  if (plain.includes(':')) return plain;
  const decoded = decodeBase64Text(plain);
  if (decoded === null || !decoded.includes(':')) return reject('ss: the user info is neither base64 nor method:password');
  return decoded;
}

/** 2022 ciphers take base64 keys of a fixed size (16 bytes for aes-128, else 32), `:`-joined for multi-user. */
function checkKeys2022(method: string, password: string): void {
  const size = method.includes('aes-128') ? 16 : 32;
  for (const key of password.split(':')) {
    const bytes = decodeBase64Bytes(key);
    if (!bytes || bytes.length !== size) return reject(`ss: ${method} needs base64 keys of ${size} bytes`);
  }
}

function pluginOf(query: Map<string, string>): ShadowsocksEndpoint['plugin'] | undefined {
  const plugin = param(query, 'plugin');
  if (plugin) {
    const semi = plugin.indexOf(';');
    const name = (semi >= 0 ? plugin.slice(0, semi) : plugin).trim();
    return name ? { name, options: semi >= 0 ? plugin.slice(semi + 1).trim() : '' } : undefined;
  }
  const obfs = param(query, 'obfs')?.toLowerCase();
  const host = param(query, 'obfsparam');
  if (obfs === 'http' || obfs === 'tls') {
    return { name: 'obfs-local', options: [`obfs=${obfs}`, host ? `obfs-host=${host}` : ''].filter(Boolean).join(';') };
  }
  if (obfs === 'websocket' || obfs === 'ws' || obfs === 'wss') {
    const path = param(query, 'path');
    const options = ['mode=websocket', obfs === 'wss' || param(query, 'tls') === '1' ? 'tls' : '', host ? `host=${host}` : '', path ? `path=${path}` : ''];
    return { name: 'v2ray-plugin', options: options.filter(Boolean).join(';') };
  }
  return undefined;
}

/**
 * Shadowrocket's ShadowTLS: `?shadow-tls=base64({"host","password","version","address","port"})`,
 * the ShadowTLS server in front of the shadowsocks one. It becomes the `shadow-tls` plugin a Clash
 * profile would name (which the core's check reports as a program it does not run), dialled at the
 * payload's address: read as plain shadowsocks, the entry pointed at a port that speaks ShadowTLS.
 */
function shadowTlsOf(query: Map<string, string>, endpoint: ShadowsocksEndpoint): ShadowsocksEndpoint['plugin'] | undefined {
  const raw = query.get('shadow-tls');
  if (raw === undefined) return undefined;
  const decoded = decodeBase64Text(raw.trim());
  let payload: Record<string, unknown> = {};
  try {
    const parsed: unknown = decoded === null ? null : JSON.parse(decoded);
    if (parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)) payload = parsed as Record<string, unknown>;
  } catch {
    return reject('ss: the shadow-tls settings are not base64 of a JSON object');
  }
  const text = (key: string) => (typeof payload[key] === 'string' || typeof payload[key] === 'number' ? String(payload[key]).trim() : '');
  if (text('address')) endpoint.address = checkHost('ss', text('address'));
  if (text('port')) endpoint.port = checkPort('ss', text('port'));
  const options = ['host', 'password', 'version'].filter((key) => text(key)).map((key) => `${key}=${text(key)}`);
  return { name: 'shadow-tls', options: options.join(';') };
}
