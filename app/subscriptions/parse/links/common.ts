import type { Security, SecurityType, Transport } from '../../../../shared/domain/server';
import { hostPort } from '../../../../shared/domain/server';
import { buildSecurity, buildTransport, networkOf, securityTypeOf, xhttpExtraOf } from '../stream';
import { cleanName, decodeEscapes, decodeNameEscapes, isTruthy, splitList } from '../text';
import { type LinkParts, param } from './split';

/** Reports something about a kept entry (an ignored setting) to the caller. */
export type Note = (note: string) => void;

/** The name a link carries in its fragment, or host:port when it has none. */
export function linkName(fragment: string | null | undefined, address: string, port: number): string {
  const name = fragment ? cleanName(decodeFragment(fragment)) : '';
  return name || hostPort(address, port);
}

/**
 * Some panels and channel bots encode the name as a query value is encoded: a space as `+`, a
 * real plus as `%2B` ("%D0%A0%D0%BE%D1%81%D1%81%D0%B8%D1%8F+%23001" is "Россия #001"). Such a
 * name has escapes but neither `%20` nor a raw space; any other name keeps its `+` as typed
 * ("Netflix+YouTube").
 */
export function decodeFragment(fragment: string): string {
  const formEncoded = fragment.includes('+') && /%[0-9a-fA-F]{2}/.test(fragment) && !/%20|\s/.test(fragment);
  return decodeNameEscapes(formEncoded ? fragment.replaceAll('+', ' ') : fragment);
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
): { transport: Transport; security: Security } {
  const network = networkOf(label, param(query, 'type', 'net', 'network'));
  const transport = buildTransport(network, {
    path: param(query, 'path'),
    host: param(query, 'host'),
    serviceName: param(query, 'servicename', 'service_name'),
    mode: param(query, 'mode'),
    headerType: param(query, 'headertype', 'header'),
    seed: param(query, 'seed'),
    quicSecurity: param(query, 'quicsecurity'),
    quicKey: param(query, 'key'),
    xhttpExtra: network === 'xhttp' ? xhttpExtraOf(query.get('extra'), (text) => note(`${label}: ${text}`)) : undefined,
  });
  // grpc links sometimes put the service name in `path` and the mode in `headerType`.
  if (network === 'grpc' && !transport.grpcMultiMode && param(query, 'headertype')?.toLowerCase() === 'multi') {
    transport.grpcMultiMode = true;
  }
  const type = securityTypeOf(label, param(query, 'security', 'tls'), defaultSecurity);
  const security = buildSecurity(label, type, {
    sni: param(query, 'sni', 'peer', 'servername'),
    alpn: splitList(param(query, 'alpn') ?? ''),
    fingerprint: param(query, 'fp', 'fingerprint'),
    allowInsecure: isTruthy(param(query, 'allowinsecure', 'insecure', 'allow_insecure', 'skip-cert-verify')),
    ...certificateCheckParams(query),
    publicKey: param(query, 'pbk', 'publickey', 'public-key'),
    shortId: param(query, 'sid', 'shortid', 'short-id'),
    spiderX: param(query, 'spx', 'spiderx'),
  });
  return { transport, security };
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
  return parts.userinfo === null ? '' : decodeEscapes(parts.userinfo);
}
