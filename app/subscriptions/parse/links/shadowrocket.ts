import type { Security, SecurityType, Transport } from '../../../../shared/domain/server';
import { buildSecurity, buildTransport, echConfigListOf, networkOf, securityTypeOf } from '../stream';
import { cleanName, isTruthy, splitList, str } from '../text';
import { checkHost, checkPort, reject } from '../validate';
import { decodeFragment, decodeQueryName } from './common';
import { param, parseQuery, rawQueryValues } from './split';

/**
 * Shadowrocket's share-link form, which it writes for vmess and vless alike (VmessV1, as some call
 * it): `scheme://BASE64(prefix:uuid@host:port)?remarks=…&obfs=websocket&obfsParam=…&path=…&tls=1
 * &peer=…`, where the prefix is the vmess cipher or the vless encryption (often empty: `:uuid@…`).
 * VmessV1 also names the transport fields network, wsPath, wsHost, h2Path, h2Host, kcpHeader,
 * quicSecurity, quicKey, quicHeader, tlsServer.
 */
export interface ShadowrocketLink {
  /** Before the first `:` of the payload (the vmess cipher, the vless encryption); '' when none. */
  prefix: string;
  /** The user id as written (checked by the caller). */
  id: string;
  address: string;
  port: number;
  /** The query, decoded, and as written (for the name, a form value). */
  query: Map<string, string>;
  rawQuery: string;
  /** The `#name`, raw, or null. */
  fragment: string | null;
}

/** The decoded payload (`prefix:uuid@host:port`) and what follows it (`?query#name`). */
export function splitShadowrocket(label: string, payload: string, after: string): ShadowrocketLink {
  const at = payload.lastIndexOf('@');
  if (at < 0) return reject(`${label}: the payload is not uuid@host:port`);
  const credentials = payload.slice(0, at);
  const colon = credentials.indexOf(':');
  const hostAndPort = payload.slice(at + 1).trim();
  const portColon = hostAndPort.lastIndexOf(':');
  const address = checkHost(label, portColon >= 0 ? hostAndPort.slice(0, portColon) : hostAndPort);
  const port = checkPort(label, portColon >= 0 ? hostAndPort.slice(portColon + 1) : '');
  const hashAt = after.indexOf('#');
  const rawQuery = (hashAt >= 0 ? after.slice(0, hashAt) : after).replace(/^\?/, '');
  return {
    prefix: colon >= 0 ? credentials.slice(0, colon).trim() : '',
    id: colon >= 0 ? credentials.slice(colon + 1) : credentials,
    address,
    port,
    query: parseQuery(rawQuery),
    rawQuery,
    fragment: hashAt >= 0 ? after.slice(hashAt + 1) : null,
  };
}

/**
 * Transport and security from Shadowrocket's query. `obfs` names the transport (websocket, http
 * for a TCP HTTP header, grpc, h2, …), `obfsParam` the Host, `tls=1` TLS and `peer` the SNI. With
 * `reality`, a `pbk` next to `tls=1` is REALITY, as Shadowrocket writes VLESS + REALITY.
 */
export function shadowrocketStream(label: string, q: Map<string, string>, reality: boolean, note: (text: string) => void): { transport: Transport; security: Security } {
  const obfs = (param(q, 'obfs', 'network') ?? 'none').toLowerCase();
  const networkName = obfs === 'websocket' ? 'ws' : obfs === 'http' ? 'tcp' : obfs;
  const network = networkOf(label, networkName);
  const obfsHost = hostFromObfsParam(param(q, 'obfsparam'));
  const transport = buildTransport(network, {
    path: param(q, 'path', 'wspath', 'h2path'),
    host: obfsHost ?? param(q, 'wshost', 'h2host', 'host'),
    serviceName: param(q, 'path', 'servicename'),
    headerType: obfs === 'http' ? 'http' : param(q, 'kcpheader', 'quicheader', 'headertype'),
    quicSecurity: param(q, 'quicsecurity'),
    quicKey: param(q, 'quickey'),
    seed: param(q, 'seed'),
  });
  const tls = isTruthy(param(q, 'tls'));
  const securityType: SecurityType = tls ? (reality && param(q, 'pbk') ? 'reality' : 'tls') : securityTypeOf(label, param(q, 'security'), 'none');
  const security = buildSecurity(label, securityType, {
    sni: param(q, 'peer', 'sni', 'tlsserver'),
    alpn: splitList(param(q, 'alpn') ?? ''),
    fingerprint: param(q, 'fp', 'fingerprint'),
    allowInsecure: isTruthy(param(q, 'allowinsecure', 'tlsallowinsecure', 'insecure')),
    publicKey: param(q, 'pbk'),
    shortId: param(q, 'sid'),
    spiderX: param(q, 'spx'),
    ech: echConfigListOf(label, q.get('ech'), securityType, note),
  });
  return { transport, security };
}

/** The name: `remarks` (a form value), else the `#name`; '' when neither. */
export function shadowrocketName(link: ShadowrocketLink): string {
  const raw = rawQueryValues(link.rawQuery);
  const remarks = raw.get('remarks') ?? raw.get('remark');
  if (remarks) return decodeQueryName(remarks);
  return link.fragment ? cleanName(decodeFragment(link.fragment)) : '';
}

/** obfsParam is either a host name or JSON such as {"Host":"cdn.example.com"}. */
function hostFromObfsParam(value: string | undefined): string | undefined {
  if (!value) return undefined;
  if (value.startsWith('{')) {
    try {
      const parsed = JSON.parse(value) as Record<string, unknown>;
      return str(parsed.Host ?? parsed.host) || undefined;
    } catch {
      return undefined;
    }
  }
  return value;
}
