import type { ParsedServer, VmessEndpoint } from '../../../../shared/domain/server';
import { buildSecurity, buildTransport, echConfigListOf, networkOf, securityTypeOf, xhttpExtraOf } from '../stream';
import { cleanName, decodeBase64Text, decodeEscapes, isTruthy, splitList, str } from '../text';
import { checkHost, checkPort, checkUuid, reject, vmessCipher } from '../validate';
import { ipv6Declaration, unreadIpv6Note } from '../ipv6';
import { decodedUserinfo, decodeFragment, linkName, type Note, streamFromQuery } from './common';
import { beforeQueryOrFragment, param, splitLink } from './split';
import { shadowrocketName, shadowrocketStream, splitShadowrocket } from './shadowrocket';

/**
 * vmess links come in four shapes, told apart by what follows `vmess://`:
 * 1. base64 of a JSON object (the common one): `{v,ps,add,port,id,aid,scy,net,type,host,path,tls,
 *    sni,alpn,fp}`, numbers written as strings or as numbers;
 * 2. base64 of `cipher:uuid@host:port`, then `?remarks=…&obfs=websocket&obfsParam=…&path=…&tls=1
 *    &peer=…&alterId=0` (the Shadowrocket / "VmessV1" shape, shadowrocket.ts);
 * 3. base64 of `name = vmess, host, port, cipher, "uuid", over-tls=true, obfs=ws, …` (Quantumult);
 * 4. a plain URL `uuid@host:port?type=…&security=…#name`, parameters as vless;
 * and, from old exporters, shape 1's JSON without the base64.
 */
export function parseVmess(line: string, note: Note = () => undefined): ParsedServer {
  const rest = line.slice(line.indexOf('://') + 3);
  // Some old exporters put the JSON itself after the scheme, unencoded or percent-encoded.
  if (/^(\{|%7b)/i.test(rest)) return parseVmessJson(decodeEscapes(rest).trim(), note);
  const beforeQuery = beforeQueryOrFragment(rest);
  if (beforeQuery.includes('@')) return parseVmessUrl(line, note);
  const decoded = decodeBase64Text(beforeQuery);
  if (decoded === null) return reject('vmess: the payload is neither base64 nor uuid@host:port');
  const text = decoded.trim();
  if (text.startsWith('{')) return withOuterName(parseVmessJson(text, note), rest);
  if (/=\s*vmess\s*,/i.test(text)) return parseVmessQuantumult(text, note);
  if (text.includes('@')) return parseVmessShadowrocket(text, rest.slice(beforeQuery.length), note);
  return reject('vmess: the base64 payload is not a JSON object or cipher:uuid@host:port');
}

/**
 * The WebSocket / HTTP/2 host and path. Version 1 of the JSON (no `v`, or `"v": 1`) carried both
 * in `host` as "host;path"; some writers of it put only the path there. A Host header never
 * starts with "/", so such a value is the path whatever the version says.
 */
function hostAndPath(o: Record<string, unknown>, network: string): { host: string; path: string } {
  let host = str(o.host);
  let path = str(o.path);
  if (path !== '' || (network !== 'ws' && network !== 'h2' && network !== 'httpupgrade')) return { host, path };
  const v1 = o.v === undefined || String(o.v).trim() === '1';
  const semicolon = host.indexOf(';');
  if (v1 && semicolon >= 0) [host, path] = [host.slice(0, semicolon).trim(), host.slice(semicolon + 1).trim()];
  else if (host.startsWith('/')) [host, path] = ['', host];
  return { host, path };
}

/**
 * A `#name` after the base64 JSON is the sharer's renaming (channels append their tag this way);
 * it wins over the `ps` inside, as it does in Sub-Store.
 */
function withOuterName(server: ParsedServer, rest: string): ParsedServer {
  const hashAt = rest.indexOf('#');
  if (hashAt < 0) return server;
  const outer = cleanName(decodeFragment(rest.slice(hashAt + 1)));
  return outer ? { ...server, name: outer } : server;
}

function parseVmessJson(text: string, note: Note): ParsedServer {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    return reject('vmess: the base64 payload is not valid JSON');
  }
  if (data === null || typeof data !== 'object' || Array.isArray(data)) return reject('vmess: the base64 payload is not a JSON object');
  const o = data as Record<string, unknown>;
  const uuid = checkUuid('vmess', o.id);
  const address = checkHost('vmess', o.add);
  const port = checkPort('vmess', o.port);
  const network = networkOf('vmess', str(o.net));
  const type = str(o.type);
  const { host, path } = hostAndPath(o, network);
  const transport = buildTransport(network, {
    path: network === 'kcp' || network === 'quic' ? undefined : path,
    host: network === 'quic' ? undefined : host,
    serviceName: network === 'grpc' ? path : undefined,
    // v2rayN writes the grpc / xhttp mode in `type`; Marzban writes grpc's in `mode`.
    mode: str(o.mode) || (type === 'none' ? undefined : type),
    // Some providers write the cipher's "auto" as the header type (tcp has only none and http):
    // v2rayN then connects without a header, and so does this app.
    headerType: type === 'auto' ? undefined : type,
    seed: network === 'kcp' ? path : undefined,
    quicSecurity: network === 'quic' ? host : undefined,
    quicKey: network === 'quic' ? path : undefined,
    // Marzban puts xhttp's extra settings into the JSON as an object (a share link's `extra` text).
    xhttpExtra: network === 'xhttp' ? xhttpExtraOf(o.extra, (text) => note(`vmess: ${text}`)) : undefined,
  });
  const tls = typeof o.tls === 'boolean' ? (o.tls ? 'tls' : 'none') : str(o.tls);
  const securityType = securityTypeOf('vmess', tls, 'none');
  const security = buildSecurity('vmess', securityType, {
    sni: str(o.sni),
    alpn: splitList(o.alpn),
    fingerprint: str(o.fp),
    allowInsecure: isTruthy(o.allowInsecure) || isTruthy(o.insecure) || isTruthy(o['skip-cert-verify']),
    // Not in v2rayN's JSON: written by this app's export under the share-link query's names.
    pinnedCertSha256: str(o.pcs),
    verifyName: str(o.vcn),
    ech: echConfigListOf('vmess', o.ech === undefined ? undefined : str(o.ech), securityType, note),
    publicKey: str(o.pbk),
    shortId: str(o.sid),
    spiderX: str(o.spx),
    mldsa65Verify: str(o.pqv),
  });
  const alterId = alterIdOf(o.aid);
  const cipher = vmessCipher('vmess', str(o.scy) || str(o.security), note);
  // Built with its name in place, in the order `{ name, ...endpoint }` gave: copying an endpoint
  // object into a second one cost more than the rest of building it, for every link of a list.
  const server: VmessEndpoint & ParsedServer = { name: cleanName(str(o.ps)) || linkName(null, address, port), protocol: 'vmess', address, port, uuid, alterId, cipher, transport, security };
  // The JSON payload is this shape's query: `"ipv6": "1"` declares IPv6 support as `ipv6=1` does.
  if (o.ipv6 !== undefined && o.ipv6 !== null && o.ipv6 !== '') {
    const declared = ipv6Declaration(o.ipv6);
    if (declared === null) note(unreadIpv6Note(o.ipv6));
    else server.ipv6 = declared;
  }
  return server;
}

function parseVmessShadowrocket(text: string, after: string, note: Note): ParsedServer {
  if (!text.slice(0, text.lastIndexOf('@')).includes(':')) return reject('vmess: the payload is not cipher:uuid@host:port');
  const link = splitShadowrocket('vmess', text, after);
  const uuid = checkUuid('vmess', link.id);
  const { transport, security } = shadowrocketStream('vmess', link.query, false, note);
  const endpoint: VmessEndpoint = {
    protocol: 'vmess',
    address: link.address,
    port: link.port,
    uuid,
    alterId: alterIdOf(param(link.query, 'alterid', 'aid')),
    cipher: vmessCipher('vmess', link.prefix, note),
    transport,
    security,
  };
  return { name: shadowrocketName(link) || linkName(null, link.address, link.port), ...endpoint };
}

/** `name = vmess, host, port, cipher, "uuid", over-tls=true, tls-host=…, obfs=ws, obfs-path="/p", obfs-header="Host: h[Rr][Nn]…"` */
function parseVmessQuantumult(text: string, note: Note): ParsedServer {
  const eq = text.indexOf('=');
  const name = cleanName(text.slice(0, eq));
  const fields = text
    .slice(eq + 1)
    .split(',')
    .map((f) => f.trim());
  const [, rawHost, rawPort, rawCipher, rawUuid] = fields;
  const unquote = (v: string | undefined) => (v ?? '').replace(/^"|"$/g, '').trim();
  const options = new Map<string, string>();
  for (const field of fields.slice(5)) {
    const at = field.indexOf('=');
    if (at > 0) options.set(field.slice(0, at).trim().toLowerCase(), unquote(field.slice(at + 1)));
  }
  const address = checkHost('vmess', unquote(rawHost));
  const port = checkPort('vmess', unquote(rawPort));
  const uuid = checkUuid('vmess', unquote(rawUuid));
  const obfs = options.get('obfs') ?? 'none';
  const network = networkOf('vmess', obfs === 'websocket' ? 'ws' : obfs === 'http' ? 'tcp' : obfs);
  const headerHost = /Host:\s*([^[\s]+)/i.exec(options.get('obfs-header') ?? '')?.[1];
  const transport = buildTransport(network, {
    path: options.get('obfs-path'),
    host: headerHost,
    headerType: obfs === 'http' ? 'http' : undefined,
  });
  const overTls = isTruthy(options.get('over-tls'));
  const security = buildSecurity('vmess', overTls ? 'tls' : 'none', {
    sni: options.get('tls-host'),
    allowInsecure: options.get('certificate') === '0',
  });
  const endpoint: VmessEndpoint = { protocol: 'vmess', address, port, uuid, alterId: 0, cipher: vmessCipher('vmess', unquote(rawCipher), note), transport, security };
  return { name: name || linkName(null, address, port), ...endpoint };
}

/** `vmess://uuid@host:port?type=ws&security=tls&encryption=auto#name` (the URL-style share link). */
function parseVmessUrl(line: string, note: Note): ParsedServer {
  const parts = splitLink(line) ?? reject('vmess: not a link');
  const uuid = checkUuid('vmess', decodedUserinfo(parts));
  const address = checkHost('vmess', parts.host);
  const port = checkPort('vmess', parts.port);
  const { transport, security } = streamFromQuery('vmess', parts.query, 'none', note, parts.rawQuery);
  const endpoint: VmessEndpoint = {
    protocol: 'vmess',
    address,
    port,
    uuid,
    alterId: alterIdOf(param(parts.query, 'aid', 'alterid')),
    cipher: vmessCipher('vmess', param(parts.query, 'encryption', 'scy', 'cipher') ?? '', note),
    transport,
    security,
  };
  return { name: linkName(parts.fragment, address, port), ...endpoint };
}

function alterIdOf(raw: unknown): number {
  const n = Number(str(raw));
  return Number.isInteger(n) && n >= 0 && n <= 65535 ? n : 0;
}
