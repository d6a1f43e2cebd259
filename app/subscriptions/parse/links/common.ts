import type { Security, SecurityType, Transport } from '../../../../shared/domain/server';
import { hostPort } from '../../../../shared/domain/server';
import { buildSecurity, buildTransport, echConfigListOf, networkOf, securityTypeOf, xhttpExtraOf } from '../stream';
import { cleanName, decodeEscapes, decodeNameEscapes, isTruthy, splitList } from '../text';
import { type LinkParts, param, rawQueryValues } from './split';

/** Reports something about a kept entry (an ignored setting) to the caller. */
export type Note = (note: string) => void;

/** The name a link carries in its fragment, or host:port when it has none. */
export function linkName(fragment: string | null | undefined, address: string, port: number): string {
  const name = fragment ? cleanName(decodeFragment(fragment)) : '';
  return name || hostPort(address, port);
}

/**
 * A link's name. RFC 3986 keeps `+` in a fragment as a plus, and so does this ("A+%7C+B" is
 * "A+|+B", as Go's url package and other RFC 3986 encoders write "A+|+B"). Some panels and channel
 * bots encode the name as a form value instead: a space as `+`, a real plus as `%2B`
 * ("%D0%A0%D0%BE%D1%81%D1%81%D0%B8%D1%8F+%2B+%23001" is "Россия + #001"). Only that mix tells them
 * apart: an RFC 3986 encoder leaves every `+` raw (Go) or escapes every one (encodeURIComponent),
 * never both, so a name with a raw `+` and a `%2B` (and no `%20` or raw space) is form-encoded.
 * A name with raw `+` alone is ambiguous, and keeps its pluses, as the RFC says.
 */
export function decodeFragment(fragment: string): string {
  const formEncoded = fragment.includes('+') && /%2b/i.test(fragment) && !/%20|\s/.test(fragment);
  return decodeNameEscapes(formEncoded ? fragment.replaceAll('+', ' ') : fragment);
}

/**
 * A name given as a query value (`remarks=`, Shadowrocket's and Shadowsocks' name parameter), as
 * written. Query values are what form encoders write (URLSearchParams, Python's urlencode, PHP's
 * http_build_query: a space as `+`, a plus as `%2B`), and a raw `+` in a query is a space by every
 * one of them, so for a name, which is only shown, `+` is read as a space. Other query values
 * keep their `+` (see parseQuery).
 */
export function decodeQueryName(raw: string): string {
  return cleanName(decodeNameEscapes(raw.replaceAll('+', ' ')));
}

/**
 * Transport and security from the query parameters vless / trojan / URL-style vmess links share
 * (type, security, sni, fp, pbk, sid, spx, path, host, serviceName, mode, headerType, alpn,
 * allowInsecure, pcs, vcn, seed, quicSecurity, key).
 */
export function streamFromQuery(
  label: string,
  query: Map<string, string>,
  defaultSecurity: SecurityType,
  note: Note = () => undefined,
  rawQuery = '',
): { transport: Transport; security: Security } {
  const network = networkOf(label, param(query, 'type', 'net', 'network'));
  const transport = buildTransport(network, {
    path: param(query, 'path'),
    // gRPC's :authority is `authority` in links (v2rayN, Xray's link standard); its `host` is no such thing.
    host: network === 'grpc' ? param(query, 'authority') : param(query, 'host'),
    serviceName: param(query, 'servicename', 'service_name'),
    mode: param(query, 'mode'),
    headerType: param(query, 'headertype', 'header'),
    seed: param(query, 'seed'),
    quicSecurity: param(query, 'quicsecurity'),
    quicKey: param(query, 'key'),
    xhttpExtra: network === 'xhttp' ? xhttpExtraOf(extraText(query, rawQuery), (text) => note(`${label}: ${text}`)) : undefined,
  });
  // grpc links sometimes put the service name in `path` and the mode in `headerType`.
  if (network === 'grpc' && !transport.grpcMultiMode && param(query, 'headertype')?.toLowerCase() === 'multi') {
    transport.grpcMultiMode = true;
  }
  const type = securityTypeOf(label, param(query, 'security', 'tls'), defaultSecurity);
  const security = buildSecurity(label, type, {
    // The raw value: an empty `ech=` asks for a DNS lookup, which param() would drop unsaid.
    ech: echConfigListOf(label, query.get('ech'), type, note),
    sni: param(query, 'sni', 'peer', 'servername'),
    alpn: splitList(param(query, 'alpn') ?? ''),
    fingerprint: param(query, 'fp', 'fingerprint'),
    allowInsecure: isTruthy(param(query, 'allowinsecure', 'insecure', 'allow_insecure', 'skip-cert-verify')),
    // certificateCheckParams's two fields, written out: no object to spread per link.
    pinnedCertSha256: param(query, 'pcs', 'pinnedpeercertsha256'),
    verifyName: param(query, 'vcn', 'verifypeercertbyname'),
    publicKey: param(query, 'pbk', 'publickey', 'public-key'),
    mldsa65Verify: param(query, 'pqv'),
    shortId: param(query, 'sid', 'shortid', 'short-id'),
    spiderX: param(query, 'spx', 'spiderx'),
  });
  return { transport, security };
}

/**
 * xhttp's `extra` JSON as the panel meant it. A panel that builds its query with a form encoder
 * (Python's urlencode, URLSearchParams) turns the spaces a JSON writer puts after `:` and `,`
 * into `+`, which is no JSON; read as a form value (`+` a space, `%2B` a plus) it is the JSON
 * again. Text that already parses is taken as it is.
 */
function extraText(query: Map<string, string>, rawQuery: string): string | undefined {
  const text = query.get('extra');
  if (text === undefined || parsesAsJson(text)) return text;
  const raw = rawQueryValues(rawQuery).get('extra');
  if (raw === undefined || !raw.includes('+')) return text;
  const formDecoded = decodeEscapes(raw.replaceAll('+', ' '));
  return parsesAsJson(formDecoded) ? formDecoded : text;
}

function parsesAsJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/**
 * The certificate pins (`pcs`, Xray's `pinnedPeerCertSha256`) and the name to verify the
 * certificate by (`vcn`, Xray's `verifyPeerCertByName`) panels put into links since Xray dropped
 * allowInsecure; some write the config's long names instead.
 */
export function certificateCheckParams(query: Map<string, string>): { pinnedCertSha256?: string; verifyName?: string } {
  return {
    pinnedCertSha256: param(query, 'pcs', 'pinnedpeercertsha256'),
    verifyName: param(query, 'vcn', 'verifypeercertbyname'),
  };
}

export function decodedUserinfo(parts: LinkParts): string {
  return parts.userinfo === null ? '' : decodeEscapes(parts.userinfo, 'user info');
}
