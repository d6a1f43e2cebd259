import type { ParsedServer, TrojanEndpoint, VlessEndpoint } from '../../../../shared/domain/server';
import { buildTransport } from '../stream';
import { checkHost, flowField, flowOf, checkPort, checkSecret, checkUuid, reject } from '../validate';
import { decodedUserinfo, linkName, type Note, streamFromQuery } from './common';
import { decodeBase64Text, isTruthy } from '../text';
import { type ShadowrocketLink, shadowrocketName, shadowrocketStream, splitShadowrocket } from './shadowrocket';
import { beforeQueryOrFragment, param, splitLink } from './split';

/**
 * `vless://uuid@host:port?type=…&security=…&sni=…&pbk=…&flow=…#name`, or Shadowrocket's form
 * (parseVlessShadowrocket).
 */
export function parseVless(line: string, note: Note = () => undefined): ParsedServer {
  const rest = line.slice(line.indexOf('://') + 3);
  const beforeQuery = beforeQueryOrFragment(rest);
  if (!beforeQuery.includes('@')) {
    const decoded = decodeBase64Text(beforeQuery)?.trim();
    if (decoded?.includes('@')) return parseVlessShadowrocket(splitShadowrocket('vless', decoded, rest.slice(beforeQuery.length)), note);
  }
  const parts = splitLink(line) ?? reject('vless: not a link');
  if (speaksShadowrocket(parts.query)) {
    return parseVlessShadowrocket(splitShadowrocket('vless', decodedUserinfo(parts) + `@${parts.host}:${parts.port ?? ''}`, line.slice(line.indexOf('?') >= 0 ? line.indexOf('?') : line.length)), note);
  }
  const uuid = checkUuid('vless', decodedUserinfo(parts));
  const address = checkHost('vless', parts.host);
  const port = checkPort('vless', parts.port);
  const { transport, security } = streamFromQuery('vless', parts.query, 'none', note, parts.rawQuery);
  const encryption = param(parts.query, 'encryption') ?? 'none';
  const flow = flowOf('vless', param(parts.query, 'flow') ?? '');
  // Built with its name in place, in the order `{ name, ...endpoint }` gave: copying an endpoint
  // object into a second one cost more than the rest of building it, for every link of a list.
  const server: VlessEndpoint & { name: string } = { name: linkName(parts.fragment, address, port), protocol: 'vless', address, port, uuid, encryption, transport, security };
  if (flow !== undefined) server.flow = flow;
  return server;
}

/**
 * Shadowrocket writes VLESS as it writes VMess: `vless://BASE64(encryption:uuid@host:port)?remarks=…
 * &tls=1&peer=…&obfs=websocket&obfsParam=…&path=…&xtls=2&pbk=…&sid=…` (the encryption often
 * empty, `:uuid@…`), and some panels write the same query after a plain `uuid@host:port`. `xtls`
 * is the flow: 2 is Vision (`xtls-rprx-vision`), 1 the XTLS v1 flows, which current cores no
 * longer run (refused as obsolete by checkFlow); `tls=1` with a `pbk` is REALITY.
 */
function parseVlessShadowrocket(link: ShadowrocketLink, note: Note): ParsedServer {
  const uuid = checkUuid('vless', link.id);
  const { transport, security } = shadowrocketStream('vless', link.query, true, note);
  const xtls = param(link.query, 'xtls');
  const flow = param(link.query, 'flow') ?? (xtls === '2' ? 'xtls-rprx-vision' : xtls === '1' ? 'xtls-rprx-direct' : '');
  const prefix = link.prefix.toLowerCase();
  const endpoint: VlessEndpoint = {
    protocol: 'vless',
    address: link.address,
    port: link.port,
    uuid,
    // Shadowrocket writes the encryption as the prefix, "auto" or "none", or none at all; VLESS has only "none" (or a VLESS Encryption key).
    encryption: prefix === '' || prefix === 'auto' ? 'none' : link.prefix,
    transport,
    security,
    ...flowField('vless', flow),
  };
  return { name: shadowrocketName(link) || linkName(null, link.address, link.port), ...endpoint };
}

/**
 * A plain `uuid@host:port` link whose query is Shadowrocket's: none of the standard `type` /
 * `security` names, but its own `tls`, `obfs` or `xtls`.
 */
function speaksShadowrocket(query: Map<string, string>): boolean {
  if (query.has('type') || query.has('security')) return false;
  return query.has('xtls') || query.has('obfs') || (query.has('tls') && query.has('remarks'));
}

/**
 * `trojan://password@host:port?security=tls&sni=…&type=ws&path=…#name`. Security defaults to TLS
 * (trojan is TLS by definition); the port defaults to 443 as the trojan URL format says.
 * Shadowrocket writes WebSocket as `plugin=obfs-local;obfs=websocket;obfs-host=…;obfs-uri=…` or
 * as `ws=1&wspath=…`.
 */
export function parseTrojan(line: string, note: Note = () => undefined): ParsedServer {
  const parts = splitLink(line) ?? reject('trojan: not a link');
  const password = checkSecret('trojan', 'password', decodedUserinfo(parts));
  const address = checkHost('trojan', parts.host);
  const port = checkPort('trojan', parts.port, 443);
  const stream = streamFromQuery('trojan', parts.query, 'tls', note, parts.rawQuery);
  let transport = stream.transport;
  const security = stream.security;
  const plugin = param(parts.query, 'plugin');
  const wsFlag = parts.query.get('ws');
  if (!parts.query.has('type') && wsFlag !== undefined && (wsFlag === '' || isTruthy(wsFlag))) {
    // Shadowrocket and trojan-go write WebSocket as a flag: `?ws=1&wspath=/p` (or a bare `ws`).
    transport = buildTransport('ws', { path: param(parts.query, 'wspath', 'path'), host: param(parts.query, 'wshost', 'host') });
  } else if (plugin && !parts.query.has('type')) {
    const options = pluginOptions(plugin);
    const obfs = options.get('obfs')?.toLowerCase();
    if (obfs === 'websocket' || obfs === 'ws') {
      transport = buildTransport('ws', { path: options.get('obfs-uri') ?? options.get('path'), host: options.get('obfs-host') ?? options.get('host') });
    }
  }
  // Built with its name in place, as parseVless builds its entry.
  const server: TrojanEndpoint & { name: string } = { name: linkName(parts.fragment, address, port), protocol: 'trojan', address, port, password, transport, security };
  return server;
}

/** `name;k=v;k2=v2` (SIP003 plugin parameter) → map of options (the name under "" ). */
export function pluginOptions(plugin: string): Map<string, string> {
  const out = new Map<string, string>();
  const [name, ...rest] = plugin.split(';');
  out.set('', (name ?? '').trim());
  for (const item of rest) {
    const eq = item.indexOf('=');
    const key = (eq >= 0 ? item.slice(0, eq) : item).trim().toLowerCase();
    if (key && !out.has(key)) out.set(key, eq >= 0 ? item.slice(eq + 1).trim() : '');
  }
  return out;
}
