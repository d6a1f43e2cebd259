/**
 * Share links of protocols only sing-box carries here (no v2ray-family core has them):
 * Hysteria v1, AnyTLS and NaiveProxy. Their servers are carried by sing-box beside the main core
 * (app/core/carrier.ts); the parser only reads what the link says.
 */
import type { AnytlsEndpoint, HysteriaEndpoint, NaiveEndpoint, ParsedServer } from '../../../../shared/domain/server';
import { buildSecurity, noStreamTransport, quicTransport } from '../stream';
import { isTruthy, splitList } from '../text';
import { checkHost, checkPort, checkPortHopping, checkSecret, reject } from '../validate';
import { decodedUserinfo, linkName } from './common';
import { mbps } from './quic';
import { param, splitLink } from './split';

/**
 * `hysteria://host:port?protocol=udp&auth=…&peer=sni&insecure=1&upmbps=10&downmbps=50&alpn=hysteria&obfs=xplus&obfsParam=…&mport=…#name`
 * (also `hy://`), Hysteria's own v1 URI scheme. Both speeds are required by Hysteria v1 (its
 * congestion control starts from them): an entry without them is refused here, not guessed.
 */
export function parseHysteria(line: string): ParsedServer {
  const parts = splitLink(line) ?? reject('hysteria: not a link');
  const address = checkHost('hysteria', parts.host);
  const rawPort = parts.port ?? '';
  const hopping = /[,-]/.test(rawPort) ? checkPortHopping('hysteria', rawPort) : undefined;
  const port = checkPort('hysteria', hopping ? /^\d+/.exec(hopping)?.[0] : rawPort);
  const q = parts.query;
  const upMbps = mbps(param(q, 'upmbps', 'up', 'up_mbps'));
  const downMbps = mbps(param(q, 'downmbps', 'down', 'down_mbps'));
  if (upMbps === undefined || downMbps === undefined) return reject('hysteria: the link gives no upmbps and downmbps, which Hysteria v1 needs');
  const security = buildSecurity('hysteria', 'tls', {
    sni: param(q, 'peer', 'sni'),
    alpn: splitList(param(q, 'alpn') ?? ''),
    allowInsecure: isTruthy(param(q, 'insecure', 'allowinsecure', 'allow_insecure')),
    pinnedCertSha256: param(q, 'pcs', 'pinsha256'),
    verifyName: param(q, 'vcn'),
  });
  const endpoint: HysteriaEndpoint = { protocol: 'hysteria', address, port, upMbps, downMbps, transport: quicTransport(), security };
  // Some exporters put the auth string in the user info, as Hysteria2 links do.
  const auth = param(q, 'auth', 'auth_str', 'auth-str') ?? (parts.userinfo ? decodedUserinfo(parts) : undefined);
  if (auth) endpoint.auth = auth;
  const obfs = param(q, 'obfsparam', 'obfs-password', 'obfs_password');
  const obfsType = param(q, 'obfs')?.toLowerCase();
  if (obfsType && obfsType !== 'none' && obfsType !== 'xplus') return reject(`hysteria: obfs ${obfsType.slice(0, 20)} is unknown (Hysteria v1 has only xplus)`);
  // Older links name the password itself `obfs` (no type: xplus is the only one).
  const obfsPassword = obfs ?? (obfsType && obfsType !== 'xplus' && obfsType !== 'none' ? obfsType : undefined);
  if (obfsType === 'xplus' && !obfsPassword) return reject('hysteria: obfs xplus without obfsParam');
  if (obfsPassword) endpoint.obfs = obfsPassword;
  const mport = param(q, 'mport', 'ports');
  const portHopping = hopping ?? (mport ? checkPortHopping('hysteria', mport) : undefined);
  if (portHopping) endpoint.portHopping = portHopping;
  const carrier = param(q, 'protocol')?.toLowerCase();
  if (carrier) endpoint.carrier = carrier;
  return { name: linkName(parts.fragment, address, port), ...endpoint };
}

/**
 * `anytls://password@host:port/?sni=…&insecure=1&fp=chrome&alpn=…#name`, as anytls-go and Mihomo
 * write it; v2rayN and Throne also write `security=reality&pbk=…&sid=…` for an AnyTLS server behind
 * REALITY, which sing-box dials as such. Read as plain TLS, that server's handshake would go to
 * the site it borrows and fail. Any other `security` is refused: AnyTLS always runs over TLS.
 */
export function parseAnytls(line: string): ParsedServer {
  const parts = splitLink(line) ?? reject('anytls: not a link');
  const password = checkSecret('anytls', 'password', decodedUserinfo(parts));
  const address = checkHost('anytls', parts.host);
  const port = checkPort('anytls', parts.port, 443);
  const q = parts.query;
  const declared = param(q, 'security')?.toLowerCase();
  if (declared !== undefined && declared !== '' && declared !== 'tls' && declared !== 'reality') return reject(`anytls: security ${declared.slice(0, 20)} is not one AnyTLS runs over (tls or reality)`);
  const security = buildSecurity('anytls', declared === 'reality' ? 'reality' : 'tls', {
    publicKey: param(q, 'pbk', 'publickey', 'public-key'),
    shortId: param(q, 'sid', 'shortid', 'short-id'),
    spiderX: param(q, 'spx'),
    sni: param(q, 'sni', 'peer'),
    alpn: splitList(param(q, 'alpn') ?? ''),
    fingerprint: param(q, 'fp', 'fingerprint', 'client-fingerprint'),
    allowInsecure: isTruthy(param(q, 'insecure', 'allowinsecure', 'allow_insecure', 'skip-cert-verify')),
    pinnedCertSha256: param(q, 'pcs'),
    verifyName: param(q, 'vcn'),
  });
  const endpoint: AnytlsEndpoint = { protocol: 'anytls', address, port, password, transport: noStreamTransport(), security };
  return { name: linkName(parts.fragment, address, port), ...endpoint };
}

/**
 * `naive+https://user:pass@host:port#name` (and `naive+quic://` for HTTP/3), NaiveProxy's own
 * form. The TLS name is the host unless `sni` says otherwise.
 */
export function parseNaive(line: string): ParsedServer {
  const parts = splitLink(line) ?? reject('naive: not a link');
  const quic = parts.scheme === 'naive+quic';
  const address = checkHost('naive', parts.host);
  const port = checkPort('naive', parts.port, 443);
  const endpoint: NaiveEndpoint = {
    protocol: 'naive',
    address,
    port,
    transport: noStreamTransport(),
    security: buildSecurity('naive', 'tls', { sni: param(parts.query, 'sni', 'peer') }),
  };
  if (parts.userinfo !== null) {
    const userinfo = decodedUserinfo(parts);
    const colon = userinfo.indexOf(':');
    endpoint.username = colon >= 0 ? userinfo.slice(0, colon) : userinfo;
    if (colon >= 0) endpoint.password = userinfo.slice(colon + 1);
  }
  if (quic) endpoint.quic = true;
  return { name: linkName(parts.fragment, address, port), ...endpoint };
}
