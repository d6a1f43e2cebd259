import type { Hysteria2Endpoint, ParsedServer, TuicEndpoint } from '../../../../shared/domain/server';
import { buildSecurity, echConfigListOf, quicTransport } from '../stream';
import { isTruthy, splitList } from '../text';
import { checkHost, checkPort, checkPortHopping, checkSecret, checkUuid, reject } from '../validate';
import { decodedUserinfo, linkName, type Note } from './common';
import { param, paramIn, spellings, splitLink } from './split';

/**
 * `hysteria2://password@host:port/?sni=…&insecure=1&obfs=salamander&obfs-password=…#name`
 * (also `hy2://`). The port defaults to 443; a port-hopping range in the authority
 * (`443,20000-30000`) or in `mport` (`ports`) is kept as the entry's `portHopping`, its first port as the
 * port. The certificate pin is Xray's `pcs` or Hysteria's own `pinSHA256` (the same SHA-256 of the
 * whole certificate); `pcs` wins when both are there. Hysteria2 always runs TLS over QUIC.
 */
export function parseHysteria2(line: string, note: Note = () => undefined): ParsedServer {
  const parts = splitLink(line) ?? reject('hysteria2: not a link');
  const password = decodedUserinfo(parts);
  const address = checkHost('hysteria2', parts.host);
  const rawPort = parts.port ?? '';
  const hopping = /[,-]/.test(rawPort) ? checkPortHopping('hysteria2', rawPort) : undefined;
  const port = checkPort('hysteria2', hopping ? /^\d+/.exec(hopping)?.[0] : rawPort, 443);
  const q = parts.query;
  // v2rayN writes the hopping range as `mport`; converters that speak Clash's names write `ports`;
  // Throne and NekoBox write `server_ports`, their ranges joined by `-`.
  const mport = param(q, 'mport', 'ports');
  const serverPorts = param(q, 'server_ports');
  const portHopping = hopping ?? (mport ? checkPortHopping('hysteria2', mport) : serverPorts ? checkPortHopping('hysteria2', throneServerPorts(serverPorts)) : undefined);
  const security = buildSecurity('hysteria2', 'tls', {
    sni: param(q, 'sni', 'peer'),
    alpn: splitList(param(q, 'alpn') ?? ''),
    allowInsecure: isTruthy(param(q, 'insecure', 'allowinsecure', 'allow_insecure')),
    pinnedCertSha256: param(q, 'pcs', 'pinnedpeercertsha256', 'pinsha256'),
    verifyName: param(q, 'vcn', 'verifypeercertbyname'),
    ech: echConfigListOf('hysteria2', q.get('ech'), 'tls', note),
  });
  // Built with its name in place (linkName reads nothing set below), as parseVless builds its entry.
  const endpoint: Hysteria2Endpoint & { name: string } = { name: linkName(parts.fragment, address, port), protocol: 'hysteria2', address, port, password, transport: quicTransport(), security };
  if (portHopping) endpoint.portHopping = portHopping;
  const obfsType = param(q, 'obfs');
  if (obfsType && obfsType.toLowerCase() !== 'none') {
    const obfsPassword = param(q, 'obfs-password', 'obfs_password', 'obfspassword');
    if (!obfsPassword) return reject(`hysteria2: obfs ${obfsType} without obfs-password`);
    endpoint.obfs = { type: obfsType.toLowerCase(), password: obfsPassword };
  }
  const up = mbps(param(q, 'up', 'upmbps'));
  const down = mbps(param(q, 'down', 'downmbps'));
  if (up !== undefined) endpoint.upMbps = up;
  if (down !== undefined) endpoint.downMbps = down;
  return endpoint;
}

/**
 * Throne's `server_ports`: sing-box's `server_ports` ranges ("20000:30000") written with `-` and
 * joined by `-`, so "20000-30000-40000-50000" is two ranges; "," and ":" are read as they are.
 */
function throneServerPorts(raw: string): string {
  if (/[,:]/.test(raw)) return raw;
  const ports = raw.split('-').map((piece) => piece.trim());
  if (ports.length <= 2) return raw;
  if (ports.length % 2 !== 0) return reject(`hysteria2: server_ports "${raw.slice(0, 40)}" is no list of port ranges`);
  const ranges: string[] = [];
  for (let i = 0; i < ports.length; i += 2) ranges.push(`${ports[i]}-${ports[i + 1]}`);
  return ranges.join(',');
}

/** "100", "100 mbps", "100Mbps" → 100; anything else → undefined. */
export function mbps(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) && value > 0 ? value : undefined;
  if (typeof value !== 'string') return undefined;
  const match = /^\s*(\d+(?:\.\d+)?)\s*(mbps)?\s*$/i.exec(value);
  // As for numbers: "0 Mbps" and "9999…9" (Infinity) are no bandwidth.
  const n = match ? Number(match[1]) : Number.NaN;
  return Number.isFinite(n) && n > 0 ? n : undefined;
}

// Spelled out once, not per link (a subscription can hold thousands of TUIC links).
const DISABLE_SNI = spellings('disable_sni');
const ALLOW_INSECURE = spellings('allow_insecure', 'insecure', 'skip_cert_verify');
const CONGESTION = spellings('congestion_control', 'congestion_controller', 'congestion');
const UDP_RELAY_MODE = spellings('udp_relay_mode');

/**
 * `tuic://uuid:password@host:port?congestion_control=bbr&udp_relay_mode=native&alpn=h3&sni=…#name`.
 * Panels spell the parameters with underscores, hyphens (`allow-insecure`, `congestion-control`)
 * or in camel case (`allowInsecure`); every parameter is read in all three spellings alike.
 */
export function parseTuic(line: string, note: Note = () => undefined): ParsedServer {
  const parts = splitLink(line) ?? reject('tuic: not a link');
  const userinfo = decodedUserinfo(parts);
  const colon = userinfo.indexOf(':');
  const uuid = checkUuid('tuic', colon >= 0 ? userinfo.slice(0, colon) : userinfo);
  const password = checkSecret('tuic', 'password', colon >= 0 ? userinfo.slice(colon + 1) : '');
  const address = checkHost('tuic', parts.host);
  const port = checkPort('tuic', parts.port);
  const q = parts.query;
  const disableSni = isTruthy(paramIn(q, DISABLE_SNI));
  const security = buildSecurity('tuic', 'tls', {
    sni: disableSni ? undefined : param(q, 'sni', 'peer'),
    alpn: splitList(param(q, 'alpn') ?? ''),
    allowInsecure: isTruthy(paramIn(q, ALLOW_INSECURE)),
    ech: echConfigListOf('tuic', q.get('ech'), 'tls', note),
  });
  // Built with its name in place, as parseHysteria2 builds its entry.
  const endpoint: TuicEndpoint & { name: string } = { name: linkName(parts.fragment, address, port), protocol: 'tuic', address, port, uuid, password, transport: quicTransport(), security };
  // `congestion_controller` is Clash's name for it, which converters carry into links.
  const congestion = paramIn(q, CONGESTION);
  const relay = paramIn(q, UDP_RELAY_MODE);
  if (congestion) endpoint.congestionControl = congestion.toLowerCase();
  if (relay) endpoint.udpRelayMode = relay.toLowerCase();
  if (isTruthy(param(q, 'reduce_rtt', 'reduce-rtt'))) note('tuic: 0-RTT (reduce_rtt) is not applied: the handshake takes its round trip');
  return endpoint;
}
