import type { Endpoint, ParsedServer, Security, SecurityType, Transport } from '../../../shared/domain/server';
import { hostPort } from '../../../shared/domain/server';
import { mbps } from './links/quic';
import { amneziaWgProblem, reservedBytes, wireguardAddresses } from './links/plain-proxies';
import { buildSecurity, buildTransport, echConfigListOf, noSecurity, noStreamTransport, pathWithEarlyData, quicTransport } from './stream';
import { asArray, asObject, cleanName, isTruthy, maskedObjectExcerpt, splitList, str } from './text';
import type { ConfigScope, FormatOutput } from './types';
import { EntryError, flowField, checkHost, checkPort, checkPortHopping, checkSecret, checkUuid, checkShadowsocksCipher, checkWireguardKey, reject, vmessCipher } from './validate';

type Json = Record<string, unknown>;

/**
 * Clash / Mihomo YAML `proxies:` (the document is already parsed): vmess, vless, trojan, ss,
 * hysteria2, tuic, wireguard, socks5, http, and anytls / hysteria (v1), which sing-box carries, with ws-opts / grpc-opts / h2-opts / http-opts /
 * reality-opts / plugin / plugin-opts; `dialer-proxy` is a chain (to another proxy, or to a
 * proxy group, which is refused). Item numbers are positions in `proxies`.
 */
export function parseClashDocument(doc: Json): FormatOutput {
  const out: FormatOutput = { scopes: [], rejected: [], notes: [] };
  const proxies = asArray(doc.proxies ?? doc.Proxy);
  const scope: ConfigScope = { entries: [], others: new Map([['DIRECT', 'direct'], ['REJECT', 'block'], ['REJECT-DROP', 'block']]) };
  for (const group of asArray(doc['proxy-groups'] ?? doc['Proxy Group'])) {
    const name = str(asObject(group).name);
    if (name) scope.others.set(name, 'group');
  }
  proxies.forEach((raw, index) => {
    const item = asObject(raw);
    const line = index + 1;
    const name = cleanName(str(item.name));
    const excerpt = maskedObjectExcerpt(raw);
    const notesBefore = out.notes.length;
    try {
      const endpoint = clashEndpoint(str(item.type).toLowerCase(), item, (note) => out.notes.push({ line, note, excerpt }));
      const server: ParsedServer = { name: name || hostPort(endpoint.address, endpoint.port), ...endpoint };
      const via = str(item['dialer-proxy']);
      scope.entries.push({ server, line, excerpt, ref: name || null, via: via || null });
    } catch (error) {
      out.notes.length = notesBefore; // notes about an entry that was rejected after all
      if (name) scope.others.set(name, 'unsupported');
      const reason = error instanceof EntryError ? error.reason : `clash: could not be read (${String(error)})`;
      out.rejected.push({ line, reason, excerpt });
    }
  });
  out.scopes.push(scope);
  if (proxies.length === 0 && Object.keys(asObject(doc['proxy-providers'])).length > 0) {
    out.rejected.push({
      line: 1,
      reason: 'clash: the servers are in proxy-providers (remote lists), which are not fetched; add their URLs as subscriptions',
      excerpt: maskedObjectExcerpt(Object.keys(asObject(doc['proxy-providers']))),
    });
  }
  return out;
}

/** Options the cores here do not take, said once per entry rather than dropped without a word. */
const UDP_OVER_TCP_NOTE = 'ss: UDP over TCP is not applied (the core sends UDP as UDP)';
const REDUCE_RTT_NOTE = 'tuic: 0-RTT (reduce-rtt) is not applied: the handshake takes its round trip';

function clashEndpoint(type: string, o: Json, note: (text: string) => void): Endpoint {
  const label = type || 'clash';
  const server = () => ({ address: checkHost(label, o.server), port: checkPort(label, o.port) });
  switch (type) {
    case 'vmess': {
      const alterId = Number(str(o.alterId ?? o.aid));
      return {
        protocol: 'vmess',
        ...server(),
        uuid: checkUuid(label, o.uuid),
        alterId: Number.isInteger(alterId) && alterId >= 0 && alterId <= 65535 ? alterId : 0,
        cipher: vmessCipher(label, str(o.cipher), note),
        ...stream(label, o, str(o.servername), note),
      };
    }
    case 'vless': {
      const flow = str(o.flow);
      return {
        protocol: 'vless',
        ...server(),
        uuid: checkUuid(label, o.uuid),
        encryption: str(o.encryption) || 'none',
        ...flowField(label, flow),
        ...stream(label, o, str(o.servername), note),
      };
    }
    case 'trojan':
      // Trojan is TLS unless told otherwise.
      return { protocol: 'trojan', ...server(), password: checkSecret(label, 'password', o.password), ...stream(label, { tls: true, ...o }, str(o.sni), note) };
    case 'ss': {
      const method = str(o.cipher).toLowerCase();
      if (!method) return reject('ss: missing cipher');
      checkShadowsocksCipher('ss', method);
      const password = str(o.password);
      if (!password && method !== 'none' && method !== 'plain') return reject('ss: missing password');
      const plugin = pluginOf(str(o.plugin), asObject(o['plugin-opts']));
      if (isTruthy(o['udp-over-tcp'])) note(UDP_OVER_TCP_NOTE);
      return { protocol: 'shadowsocks', ...server(), method, password, ...(plugin ? { plugin } : {}), transport: noStreamTransport(), security: noSecurity() };
    }
    case 'hysteria2':
    case 'hy2': {
      const portHopping = str(o.ports) ? checkPortHopping(label, str(o.ports)) : undefined;
      // With `ports`, Mihomo hops over them and needs no `port`: the first hop is the port then.
      const where = { address: checkHost(label, o.server), port: checkPort(label, o.port ?? (portHopping ? /^\d+/.exec(portHopping)?.[0] : undefined)) };
      const obfs = str(o.obfs);
      const up = mbps(o.up);
      const down = mbps(o.down);
      return {
        protocol: 'hysteria2',
        ...where,
        password: str(o.password ?? o.auth),
        ...(portHopping ? { portHopping } : {}),
        ...(obfs ? { obfs: { type: obfs, password: checkSecret(label, 'obfs-password', o['obfs-password']) } } : {}),
        ...(up !== undefined ? { upMbps: up } : {}),
        ...(down !== undefined ? { downMbps: down } : {}),
        transport: quicTransport(),
        security: tls(label, o, note, 'tls', str(o.sni)),
      };
    }
    case 'tuic': {
      // TUIC v4 authenticates by a token; the cores here speak v5 (a UUID and a password).
      if (o.token !== undefined && o.uuid === undefined) return reject('tuic: TUIC v4 (a token), which neither sing-box nor Xray speaks: only TUIC v5 (uuid and password)');
      if (isTruthy(o['reduce-rtt'])) note(REDUCE_RTT_NOTE);
      const congestion = str(o['congestion-controller'] ?? o['congestion-control']);
      const relay = str(o['udp-relay-mode']);
      return {
        protocol: 'tuic',
        ...server(),
        uuid: checkUuid(label, o.uuid),
        password: checkSecret(label, 'password', o.password),
        ...(congestion ? { congestionControl: congestion } : {}),
        ...(relay ? { udpRelayMode: relay } : {}),
        transport: quicTransport(),
        security: tls(label, o, note, 'tls', isTruthy(o['disable-sni']) ? '' : str(o.sni)),
      };
    }
    case 'wireguard': {
      const amnezia = amneziaWgProblem(asObject(o['amnezia-wg-option']));
      if (amnezia) return reject(amnezia);
      const peer = asObject(asArray(o.peers)[0]);
      const hasPeer = Object.keys(peer).length > 0;
      const localAddresses = wireguardAddresses([str(o.ip), str(o.ipv6)].filter(Boolean));
      if (localAddresses.length === 0) return reject('wireguard: missing ip (the tunnel IP this side uses)');
      const psk = str(hasPeer ? peer['pre-shared-key'] : o['pre-shared-key']);
      const reserved = reservedBytes(hasPeer ? (peer.reserved ?? o.reserved) : o.reserved);
      const mtu = Number(o.mtu);
      return {
        protocol: 'wireguard',
        address: checkHost(label, hasPeer ? peer.server : o.server),
        port: checkPort(label, hasPeer ? peer.port : o.port),
        privateKey: checkWireguardKey(label, 'private key', o['private-key']),
        publicKey: checkWireguardKey(label, 'public key', hasPeer ? peer['public-key'] : o['public-key']),
        localAddresses,
        ...(psk ? { preSharedKey: checkWireguardKey(label, 'pre-shared key', psk) } : {}),
        ...(reserved ? { reserved } : {}),
        ...(Number.isInteger(mtu) && mtu >= 576 && mtu <= 65535 ? { mtu } : {}),
        transport: noStreamTransport(),
        security: noSecurity(),
      };
    }
    case 'socks5':
    case 'http': {
      const username = str(o.username);
      const password = str(o.password);
      return {
        protocol: type === 'socks5' ? 'socks' : 'http',
        ...server(),
        ...(username ? { username } : {}),
        ...(password ? { password } : {}),
        transport: noStreamTransport(),
        security: isTruthy(o.tls) ? tls(label, o, note, 'tls', str(o.sni)) : noSecurity(),
      };
    }
    case 'anytls':
      return { protocol: 'anytls', ...server(), password: checkSecret(label, 'password', o.password), transport: noStreamTransport(), security: tls(label, o, note, hasRealityOpts(o) ? 'reality' : 'tls', str(o.sni)) };
    case 'hysteria': {
      const where = server();
      const upMbps = mbps(o.up ?? o.up_mbps);
      const downMbps = mbps(o.down ?? o.down_mbps);
      if (upMbps === undefined || downMbps === undefined) return reject('hysteria: no up and down speeds, which Hysteria v1 needs');
      // Mihomo takes the auth as `auth-str`, or base64 in `auth`.
      const auth = str(o['auth-str'] ?? o.auth_str) || (str(o.auth) ? Buffer.from(str(o.auth), 'base64').toString('utf8') : '');
      const obfs = str(o.obfs);
      const carrier = str(o.protocol).toLowerCase();
      return {
        protocol: 'hysteria',
        ...where,
        upMbps,
        downMbps,
        ...(auth ? { auth } : {}),
        ...(obfs ? { obfs } : {}),
        ...(str(o.ports) ? { portHopping: checkPortHopping(label, str(o.ports)) } : {}),
        ...(carrier ? { carrier } : {}),
        transport: quicTransport(),
        security: tls(label, o, note, 'tls', str(o.sni)),
      };
    }
    case '':
      return reject('clash: proxy without a type');
    default:
      return reject(`clash: proxy type "${type.slice(0, 30)}" is not supported`);
  }
}

function tls(label: string, o: Json, note: (text: string) => void, type: SecurityType, sni: string): Security {
  const reality = asObject(o['reality-opts']);
  const ech = asObject(o['ech-opts']);
  return buildSecurity(label, type, {
    // Mihomo's ech-opts: `config` the base64 ECHConfigList; enabled without one, Mihomo looks it up in DNS.
    ech: isTruthy(ech.enable) ? echConfigListOf(label, str(ech.config), type, note) : undefined,
    sni,
    alpn: splitList(o.alpn),
    fingerprint: str(o['client-fingerprint']),
    allowInsecure: isTruthy(o['skip-cert-verify']),
    pinnedCertSha256: certificateFingerprint(o.fingerprint),
    publicKey: str(reality['public-key']),
    shortId: str(reality['short-id']),
  });
}

/**
 * Mihomo's `fingerprint` is the SHA-256 of the server's whole (leaf) certificate, the check Xray's
 * pin makes. Some converters put a uTLS name ("chrome") there, which `client-fingerprint` is
 * for: only hex digits and colons are read as a pin, anything else is no pin.
 */
function certificateFingerprint(value: unknown): string | undefined {
  const text = str(value);
  return /^[0-9a-f:]+$/i.test(text) ? text : undefined;
}

/** `reality-opts` with anything in it: the server is behind REALITY (for AnyTLS too, which sing-box dials so). */
const hasRealityOpts = (o: Json): boolean => Object.keys(asObject(o['reality-opts'])).length > 0;

function stream(label: string, o: Json, sni: string, note: (text: string) => void): { transport: Transport; security: Security } {
  const type: SecurityType = hasRealityOpts(o) ? 'reality' : isTruthy(o.tls) ? 'tls' : 'none';
  const security = type === 'none' ? noSecurity() : tls(label, o, note, type, sni);
  const network = str(o.network).toLowerCase() || 'tcp';
  const ws = asObject(o['ws-opts']);
  const wsHeaders = asObject(ws.headers ?? o['ws-headers']);
  switch (network) {
    case 'tcp':
      return { transport: { network: 'tcp' }, security };
    case 'ws': {
      const path = pathWithEarlyData(label, str(ws.path ?? o['ws-path']), ws['max-early-data'], ws['early-data-header-name'], note);
      const host = str(wsHeaders.Host ?? wsHeaders.host);
      const upgrade = isTruthy(ws['v2ray-http-upgrade']);
      return { transport: buildTransport(upgrade ? 'httpupgrade' : 'ws', { path, host }), security };
    }
    case 'grpc':
      return { transport: buildTransport('grpc', { serviceName: str(asObject(o['grpc-opts'])['grpc-service-name']) }), security };
    case 'h2': {
      const h2 = asObject(o['h2-opts']);
      return { transport: buildTransport('h2', { path: str(h2.path), host: splitList(h2.host).join(',') }), security };
    }
    case 'http': {
      const http = asObject(o['http-opts']);
      const headers = asObject(http.headers);
      const host = Array.isArray(headers.Host) ? str(headers.Host[0]) : str(headers.Host);
      const path = Array.isArray(http.path) ? str(http.path[0]) : str(http.path);
      return { transport: buildTransport('tcp', { headerType: 'http', path, host }), security };
    }
    case 'httpupgrade':
      return { transport: buildTransport('httpupgrade', { path: str(ws.path), host: str(wsHeaders.Host ?? wsHeaders.host) }), security };
    case 'xhttp': {
      const x = asObject(o['xhttp-opts']);
      return { transport: buildTransport('xhttp', { path: str(x.path), host: str(x.host), mode: str(x.mode) }), security };
    }
    default:
      return reject(`${label}: network "${network.slice(0, 20)}" is not supported`);
  }
}

/** Clash plugin + plugin-opts → a SIP003 plugin as a share link would write it. */
function pluginOf(plugin: string, opts: Json): { name: string; options: string } | undefined {
  if (!plugin) return undefined;
  if (plugin === 'obfs') {
    const options = [`obfs=${str(opts.mode) || 'http'}`, str(opts.host) ? `obfs-host=${str(opts.host)}` : ''];
    return { name: 'obfs-local', options: options.filter(Boolean).join(';') };
  }
  if (plugin === 'v2ray-plugin') {
    const options = [
      `mode=${str(opts.mode) || 'websocket'}`,
      isTruthy(opts.tls) ? 'tls' : '',
      str(opts.host) ? `host=${str(opts.host)}` : '',
      str(opts.path) ? `path=${str(opts.path)}` : '',
      isTruthy(opts.mux) ? 'mux=1' : '',
    ];
    return { name: 'v2ray-plugin', options: options.filter(Boolean).join(';') };
  }
  const options = Object.entries(opts)
    .filter(([, v]) => v !== null && typeof v !== 'object')
    .map(([k, v]) => `${k}=${String(v)}`)
    .join(';');
  return { name: plugin, options };
}
