/**
 * What a subscription URL serves, in each format providers use: base64 of share links (the
 * default), plain links, a sing-box config, a Clash/Mihomo YAML. Real field names throughout, so
 * the product's parsers are exercised against what they will meet.
 */
import { stringify } from 'yaml';
import { type Dial, shareLink } from './share-links';
import { TLS_SERVER_NAME, WS_HOST, type ServerSpec } from './world';

export type SubscriptionFormat = 'base64' | 'plain' | 'json' | 'clash';

export interface V2rayServed {
  spec: ServerSpec;
  dial: Dial;
}

/** A server of the modern block (Xray / sing-box hosted): served as its share link only. */
export interface LinkServed {
  link: string;
}

export type ServedServer = V2rayServed | LinkServed;

const isLinkOnly = (s: ServedServer): s is LinkServed => 'link' in s;

export function plainLinks(servers: ServedServer[]): string {
  return servers.map((s) => (isLinkOnly(s) ? s.link : shareLink(s.spec, s.dial))).join('\n') + (servers.length > 0 ? '\n' : '');
}

/** Why `format` cannot be served for these servers, or null. */
export function unservableFormat(format: SubscriptionFormat, servers: ServedServer[]): string | null {
  if (format === 'base64' || format === 'plain' || !servers.some(isLinkOnly)) return null;
  return `format ${format} is not served for servers hosted by Xray or sing-box; ask for base64 or plain share links\n`;
}

/** Standard, padded base64 of the plain list: what most providers serve. */
export function base64Links(servers: ServedServer[]): string {
  return Buffer.from(plainLinks(servers), 'utf8').toString('base64');
}

function singBoxTls(spec: ServerSpec): Record<string, unknown> | undefined {
  return spec.security === 'tls' ? { enabled: true, server_name: TLS_SERVER_NAME, insecure: true } : undefined;
}

function singBoxTransport(spec: ServerSpec): Record<string, unknown> | undefined {
  return spec.network === 'ws' ? { type: 'ws', path: spec.wsPath, headers: { Host: WS_HOST } } : undefined;
}

export function singBoxOutbound({ spec, dial }: V2rayServed): Record<string, unknown> {
  const base = { tag: spec.name, server: dial.host, server_port: dial.port };
  const layers = { tls: singBoxTls(spec), transport: singBoxTransport(spec) };
  switch (spec.protocol) {
    case 'vmess':
      return { type: 'vmess', ...base, uuid: spec.uuid, security: 'auto', alter_id: 0, ...layers };
    case 'vless':
      return { type: 'vless', ...base, uuid: spec.uuid, flow: '', ...layers };
    case 'trojan':
      return { type: 'trojan', ...base, password: spec.password, ...layers };
    case 'shadowsocks':
      return { type: 'shadowsocks', ...base, method: spec.ssMethod, password: spec.password };
  }
}

export function singBoxConfig(servers: V2rayServed[]): string {
  const outbounds = servers.map(singBoxOutbound);
  const selector = { type: 'selector', tag: 'proxy', outbounds: outbounds.map((o) => o.tag) };
  // JSON.stringify drops the undefined tls/transport keys of plain-TCP servers.
  return JSON.stringify({ outbounds: [selector, ...outbounds, { type: 'direct', tag: 'direct' }] }, null, 2);
}

/** Mihomo's `fingerprint`: the certificate's SHA-256 pin, as panels write it for self-signed servers. */
function clashPin(spec: ServerSpec): Record<string, string> {
  return spec.certificatePin ? { fingerprint: spec.certificatePin } : {};
}

export function clashProxy({ spec, dial }: V2rayServed): Record<string, unknown> {
  const base: Record<string, unknown> = { name: spec.name, type: spec.protocol === 'shadowsocks' ? 'ss' : spec.protocol, server: dial.host, port: dial.port, udp: true };
  const transport: Record<string, unknown> =
    spec.network === 'ws' ? { network: 'ws', 'ws-opts': { path: spec.wsPath, headers: { Host: WS_HOST } } } : { network: 'tcp' };
  switch (spec.protocol) {
    case 'vmess':
      return { ...base, uuid: spec.uuid, alterId: 0, cipher: 'auto', tls: false, ...transport };
    case 'vless':
      return {
        ...base,
        uuid: spec.uuid,
        tls: spec.security === 'tls',
        ...(spec.security === 'tls' ? { servername: TLS_SERVER_NAME, 'skip-cert-verify': true, ...clashPin(spec) } : {}),
        ...transport,
      };
    case 'trojan':
      // Clash has no switch for trojan without TLS; those servers are listed as they are and only
      // clients that honour the share link's security=none can use them.
      return { ...base, password: spec.password, sni: TLS_SERVER_NAME, 'skip-cert-verify': true, ...clashPin(spec), ...transport };
    case 'shadowsocks':
      return { ...base, cipher: spec.ssMethod, password: spec.password };
  }
}

export function clashConfig(servers: V2rayServed[]): string {
  const proxies = servers.map(clashProxy);
  return stringify({
    'mixed-port': 7890,
    mode: 'rule',
    proxies,
    'proxy-groups': [{ name: 'PROXY', type: 'select', proxies: proxies.map((p) => p.name as string) }],
    rules: ['MATCH,PROXY'],
  });
}

export function renderSubscription(format: SubscriptionFormat, servers: ServedServer[]): { body: string; contentType: string } {
  switch (format) {
    case 'base64':
      return { body: base64Links(servers), contentType: 'text/plain; charset=utf-8' };
    case 'plain':
      return { body: plainLinks(servers), contentType: 'text/plain; charset=utf-8' };
    // unservableFormat keeps link-only servers away from these two.
    case 'json':
      return { body: singBoxConfig(servers.filter((s): s is V2rayServed => !isLinkOnly(s))), contentType: 'application/json; charset=utf-8' };
    case 'clash':
      return { body: clashConfig(servers.filter((s): s is V2rayServed => !isLinkOnly(s))), contentType: 'text/yaml; charset=utf-8' };
  }
}
