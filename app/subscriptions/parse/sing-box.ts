import type { Endpoint, Security, Transport } from '../../../shared/domain/server';
import { type ConfigItem, type Json, PASSED_OVER, walkConfigs } from './config-walk';
import { ipv6Declaration, unreadIpv6Note } from './ipv6';
import { mbps } from './links/quic';
import { reservedBytes, wireguardAddresses } from './links/plain-proxies';
import { buildSecurity, buildTransport, echConfigListOf, noSecurity, noStreamTransport, pathWithEarlyData, quicTransport } from './stream';
import { asArray, asObject, cleanName, splitList, str } from './text';
import type { ConfigScope, FormatOutput, NonServerKind } from './types';
import { flowField, checkHost, checkPort, checkPortHopping, checkSecret, checkUuid, checkShadowsocksCipher, checkWireguardKey, reject, vmessCipher } from './validate';

const NON_SERVERS: Record<string, NonServerKind> = {
  selector: 'group',
  urltest: 'group',
  direct: 'direct',
  block: 'block',
  dns: 'block',
};

/**
 * sing-box JSON: `outbounds` of type vmess, vless, trojan, shadowsocks, hysteria2, tuic,
 * wireguard, socks, http, anytls, hysteria (v1), naive (and WireGuard `endpoints`, sing-box
 * 1.11+), with `tls` and `transport`; `detour` is a chain, except a shadowsocks outbound's detour
 * to a `shadowtls` one: that pair is one ShadowTLS server (the `shadow-tls` plugin at the
 * shadowtls outbound's address), and the shadowtls outbound's own detour the chain. selector / urltest / direct / block / dns are skipped. The
 * name is the tag. `experimental.monitoring.ipv6_declared` (tag → bool) declares servers' IPv6
 * support. Item numbers: position in `outbounds` (then `endpoints`), or the config's
 * position in an array of configs.
 */
export function parseSingBoxConfigs(configs: Json[], isArray: boolean): FormatOutput {
  return walkConfigs(configs, isArray, { name: 'sing-box', items: singBoxItems, afterConfig: applyIpv6Declarations });
}

function singBoxItems(config: Json): ConfigItem[] {
  const items = [...asArray(config.outbounds), ...asArray(config.endpoints)];
  const shadowTls = new Map(items.map(asObject).filter((o) => str(o.type).toLowerCase() === 'shadowtls' && str(o.tag)).map((o) => [str(o.tag), o]));
  return items.map((raw) => {
    const found = asObject(raw);
    const type = str(found.type).toLowerCase();
    const tag = str(found.tag);
    // The shadowtls hop is read with the shadowsocks outbound that detours through it.
    if (type === 'shadowtls') return PASSED_OVER;
    const skipped = NON_SERVERS[type];
    if (skipped) return { kind: 'not-a-server', tag, what: skipped };
    const front = type === 'shadowsocks' ? shadowTls.get(str(found.detour)) : undefined;
    const item = front ? withShadowTls(found, front) : found;
    return { kind: 'server', raw, tag, read: (note) => ({ endpoint: singBoxEndpoint(type, item, note), name: cleanName(tag), via: str(item.detour) }) };
  });
}

/**
 * `experimental.monitoring.ipv6_declared` (tag → bool), the seed's own field for servers whose
 * IPv6 support the provider declares: each named server gets `ipv6`. A tag that names no server
 * of this config, or a value that is not a bool, is reported and declares nothing.
 */
function applyIpv6Declarations(config: Json, scope: ConfigScope, line: number, out: FormatOutput): void {
  const declared = asObject(asObject(asObject(config.experimental).monitoring).ipv6_declared);
  const byTag = new Map(scope.entries.filter((e) => e.ref !== null).map((e) => [e.ref as string, e]));
  for (const [tag, raw] of Object.entries(declared)) {
    const excerpt = `ipv6_declared: ${cleanName(tag).slice(0, 60)}`;
    const entry = byTag.get(tag);
    if (!entry) {
      out.notes.push({ line, note: `experimental.monitoring.ipv6_declared names "${cleanName(tag).slice(0, 60)}", which is no server of this config: ignored`, excerpt });
      continue;
    }
    const value = ipv6Declaration(raw);
    if (value === null) out.notes.push({ line: entry.line, note: unreadIpv6Note(raw), excerpt: entry.excerpt });
    else entry.server.ipv6 = value;
  }
}

function singBoxEndpoint(type: string, o: Json, note: (text: string) => void): Endpoint {
  const label = type || 'sing-box';
  const server = () => ({ address: checkHost(label, o.server), port: checkPort(label, o.server_port) });
  switch (type) {
    case 'vmess': {
      const alterId = Number(str(o.alter_id));
      return {
        protocol: 'vmess',
        ...server(),
        uuid: checkUuid(label, o.uuid),
        alterId: Number.isInteger(alterId) && alterId >= 0 && alterId <= 65535 ? alterId : 0,
        cipher: vmessCipher(label, str(o.security), note),
        ...stream(label, o, note),
      };
    }
    case 'vless': {
      const flow = str(o.flow);
      return { protocol: 'vless', ...server(), uuid: checkUuid(label, o.uuid), encryption: 'none', ...flowField(label, flow), ...stream(label, o, note) };
    }
    case 'trojan':
      return { protocol: 'trojan', ...server(), password: checkSecret(label, 'password', o.password), ...stream(label, o, note) };
    case 'shadowsocks': {
      const method = str(o.method).toLowerCase();
      if (!method) return reject('shadowsocks: missing method');
      checkShadowsocksCipher('shadowsocks', method);
      const password = str(o.password);
      if (!password && method !== 'none') return reject('shadowsocks: missing password');
      const plugin = str(o.plugin);
      return {
        protocol: 'shadowsocks',
        ...server(),
        method,
        password,
        ...(plugin ? { plugin: { name: plugin, options: str(o.plugin_opts) } } : {}),
        transport: noStreamTransport(),
        security: noSecurity(),
      };
    }
    case 'hysteria2': {
      // A sing-box list option may be given as one value: `"server_ports": "20000:30000"`.
      const hopping = (typeof o.server_ports === 'string' ? [o.server_ports] : asArray(o.server_ports)).map(String).join(',');
      const portHopping = hopping ? checkPortHopping(label, hopping) : undefined;
      const obfs = asObject(o.obfs);
      const up = mbps(o.up_mbps);
      const down = mbps(o.down_mbps);
      const obfsType = str(obfs.type);
      return {
        protocol: 'hysteria2',
        address: checkHost(label, o.server),
        // sing-box takes server_ports instead of server_port ("conflicts with"): the first hop is the port.
        port: checkPort(label, o.server_port ?? (portHopping ? /^\d+/.exec(portHopping)?.[0] : undefined)),
        password: str(o.password),
        ...(portHopping ? { portHopping } : {}),
        ...(obfsType ? { obfs: { type: obfsType, password: checkSecret(label, 'obfs password', obfs.password) } } : {}),
        ...(up !== undefined ? { upMbps: up } : {}),
        ...(down !== undefined ? { downMbps: down } : {}),
        transport: quicTransport(),
        security: tlsOf(label, asObject(o.tls), true, note),
      };
    }
    case 'tuic': {
      const congestion = str(o.congestion_control);
      const relay = str(o.udp_relay_mode);
      return {
        protocol: 'tuic',
        ...server(),
        uuid: checkUuid(label, o.uuid),
        password: checkSecret(label, 'password', o.password),
        ...(congestion ? { congestionControl: congestion } : {}),
        ...(relay ? { udpRelayMode: relay } : {}),
        transport: quicTransport(),
        security: tlsOf(label, asObject(o.tls), true, note),
      };
    }
    case 'wireguard':
      return wireguard(label, o);
    case 'socks':
    case 'http': {
      const username = str(o.username);
      const password = str(o.password);
      return {
        protocol: type,
        ...server(),
        ...(username ? { username } : {}),
        ...(password ? { password } : {}),
        transport: noStreamTransport(),
        security: type === 'http' ? tlsOf(label, asObject(o.tls), false, note) : noSecurity(),
      };
    }
    case 'anytls':
      return { protocol: 'anytls', ...server(), password: checkSecret(label, 'password', o.password), transport: noStreamTransport(), security: tlsOf(label, asObject(o.tls), true, note) };
    case 'hysteria': {
      const hopping = (typeof o.server_ports === 'string' ? [o.server_ports] : asArray(o.server_ports)).map(String).join(',');
      const portHopping = hopping ? checkPortHopping(label, hopping) : undefined;
      const upMbps = mbps(o.up_mbps ?? o.up);
      const downMbps = mbps(o.down_mbps ?? o.down);
      if (upMbps === undefined || downMbps === undefined) return reject('hysteria: no up_mbps and down_mbps, which Hysteria v1 needs');
      const auth = str(o.auth_str) || (str(o.auth) ? Buffer.from(str(o.auth), 'base64').toString('utf8') : '');
      const obfs = str(o.obfs);
      return {
        protocol: 'hysteria',
        address: checkHost(label, o.server),
        port: checkPort(label, o.server_port ?? (portHopping ? /^\d+/.exec(portHopping)?.[0] : undefined)),
        upMbps,
        downMbps,
        ...(auth ? { auth } : {}),
        ...(obfs ? { obfs } : {}),
        ...(portHopping ? { portHopping } : {}),
        transport: quicTransport(),
        security: tlsOf(label, asObject(o.tls), true, note),
      };
    }
    case 'naive': {
      const username = str(o.username);
      const password = str(o.password);
      return {
        protocol: 'naive',
        ...server(),
        ...(username ? { username } : {}),
        ...(password ? { password } : {}),
        ...(o.quic === true ? { quic: true } : {}),
        transport: noStreamTransport(),
        security: tlsOf(label, asObject(o.tls), true, note),
      };
    }
    case '':
      return reject('sing-box: outbound without a type');
    default:
      return reject(`sing-box: outbound type "${type.slice(0, 30)}" is not supported`);
  }
}

/**
 * A shadowsocks outbound that detours through a shadowtls one, as one outbound: the ShadowTLS
 * server's address, the `shadow-tls` plugin with its handshake host, password and version, and
 * the shadowtls outbound's own detour as the chain.
 */
function withShadowTls(ss: Json, front: Json): Json {
  const tls = asObject(front.tls);
  const options = [`host=${str(tls.server_name)}`, str(front.password) ? `password=${str(front.password)}` : '', `version=${str(front.version) || '1'}`].filter(Boolean).join(';');
  const { detour: _shadowTlsTag, ...rest } = ss;
  return { ...rest, server: front.server, server_port: front.server_port, plugin: 'shadow-tls', plugin_opts: options, ...(str(front.detour) ? { detour: front.detour } : {}) };
}

/** The legacy wireguard outbound (server, peer_public_key, …) or the 1.11 endpoint (peers[]). */
function wireguard(label: string, o: Json): Endpoint {
  const peer = asObject(asArray(o.peers)[0]);
  const hasPeer = Object.keys(peer).length > 0;
  const localAddresses = wireguardAddresses(o.local_address ?? o.address);
  if (localAddresses.length === 0) return reject('wireguard: missing address (the tunnel IP this side uses)');
  const psk = str(hasPeer ? peer.pre_shared_key : o.pre_shared_key);
  const reserved = reservedBytes(hasPeer ? (peer.reserved ?? o.reserved) : o.reserved);
  const mtu = Number(o.mtu);
  return {
    protocol: 'wireguard',
    address: checkHost(label, hasPeer ? (peer.address ?? peer.server ?? o.server) : o.server),
    port: checkPort(label, hasPeer ? (peer.port ?? peer.server_port ?? o.server_port) : o.server_port),
    privateKey: checkWireguardKey(label, 'private key', o.private_key),
    publicKey: checkWireguardKey(label, 'public key', hasPeer ? peer.public_key : o.peer_public_key),
    localAddresses,
    ...(psk ? { preSharedKey: checkWireguardKey(label, 'pre-shared key', psk) } : {}),
    ...(reserved ? { reserved } : {}),
    ...(Number.isInteger(mtu) && mtu >= 576 && mtu <= 65535 ? { mtu } : {}),
    transport: noStreamTransport(),
    security: noSecurity(),
  };
}

function stream(label: string, o: Json, note: (text: string) => void): { transport: Transport; security: Security } {
  const tls = asObject(o.tls);
  const security = tlsOf(label, tls, false, note);
  const t = asObject(o.transport);
  const type = str(t.type).toLowerCase();
  const headers = asObject(t.headers);
  const headerHost = Array.isArray(headers.Host) ? str(headers.Host[0]) : str(headers.Host ?? headers.host);
  switch (type) {
    case '':
      return { transport: { network: 'tcp' }, security };
    case 'ws':
      return { transport: buildTransport('ws', { path: pathWithEarlyData(label, str(t.path), t.max_early_data, t.early_data_header_name, note), host: headerHost }), security };
    case 'grpc':
      return { transport: buildTransport('grpc', { serviceName: str(t.service_name) }), security };
    case 'httpupgrade':
      return { transport: buildTransport('httpupgrade', { path: str(t.path), host: str(t.host) || headerHost }), security };
    case 'http': {
      // sing-box's "http" transport is HTTP/2 over TLS and plain HTTP/1.1 without it.
      const host = splitList(t.host).join(',');
      if (security.type !== 'none') return { transport: buildTransport('h2', { path: str(t.path), host }), security };
      return { transport: buildTransport('tcp', { headerType: 'http', path: str(t.path), host }), security };
    }
    case 'quic':
      return { transport: { network: 'quic' }, security };
    default:
      return reject(`${label}: transport "${type.slice(0, 20)}" is not supported`);
  }
}

function tlsOf(label: string, tls: Json, always: boolean, note: (text: string) => void): Security {
  const reality = asObject(tls.reality);
  const enabled = always || tls.enabled === true;
  if (!enabled) return noSecurity();
  const utls = asObject(tls.utls);
  const type = reality.enabled === true ? 'reality' : 'tls';
  return buildSecurity(label, type, {
    ech: echConfigListOf(label, singBoxEchConfig(asObject(tls.ech)), type, note),
    sni: str(tls.server_name),
    alpn: splitList(tls.alpn),
    fingerprint: utls.enabled === true ? str(utls.fingerprint) || 'chrome' : undefined,
    allowInsecure: tls.insecure === true,
    // Not `certificate_public_key_sha256`: it hashes the public key alone, a link's `pcs` (and
    // Xray's pin) the whole certificate, so one can never stand for the other.
    publicKey: str(reality.public_key),
    shortId: str(reality.short_id),
  });
}

/**
 * sing-box's `tls.ech` as a base64 ECHConfigList: `config` holds the PEM block (its lines as a
 * list, or one string) whose body is that base64. ECH enabled without a config (sing-box then
 * looks it up in DNS) is '', which echConfigListOf reports as not applied; no ECH is undefined.
 */
function singBoxEchConfig(ech: Json): string | undefined {
  if (ech.enabled !== true) return undefined;
  const pem = Array.isArray(ech.config) ? ech.config.map(str).join('\n') : str(ech.config);
  return pem.replace(/-----(BEGIN|END) ECH CONFIGS-----/g, '');
}
