import type { ParsedServer, TrojanEndpoint, VlessEndpoint } from '../../../../shared/domain/server';
import { buildTransport } from '../stream';
import { checkHost, flowField, checkPort, checkSecret, checkUuid, reject } from '../validate';
import { decodedUserinfo, linkName, type Note, streamFromQuery } from './common';
import { isTruthy } from '../text';
import { param, splitLink } from './split';

/** `vless://uuid@host:port?type=…&security=…&sni=…&pbk=…&flow=…#name` */
export function parseVless(line: string, note: Note = () => undefined): ParsedServer {
  const parts = splitLink(line) ?? reject('vless: not a link');
  const uuid = checkUuid('vless', decodedUserinfo(parts));
  const address = checkHost('vless', parts.host);
  const port = checkPort('vless', parts.port);
  const { transport, security } = streamFromQuery('vless', parts.query, 'none', note, parts.rawQuery);
  const endpoint: VlessEndpoint = {
    protocol: 'vless',
    address,
    port,
    uuid,
    encryption: param(parts.query, 'encryption') ?? 'none',
    transport,
    security,
    ...flowField('vless', param(parts.query, 'flow') ?? ''),
  };
  return { name: linkName(parts.fragment, address, port), ...endpoint };
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
  const endpoint: TrojanEndpoint = { protocol: 'trojan', address, port, password, transport, security };
  return { name: linkName(parts.fragment, address, port), ...endpoint };
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
