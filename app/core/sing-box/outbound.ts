/**
 * sing-box outbounds for a server (sing-box 1.12+ JSON; field names from its documentation and
 * confirmed by `sing-box check`, which refuses unknown fields: sing-box.int.test.ts). Assumes
 * `unsupportedReason(server, core)` returned null; throws UnsupportedServerError otherwise.
 *
 * Most servers are one outbound. ShadowTLS is two: the shadowsocks outbound detours through a
 * `shadowtls` outbound (`<tag>-shadowtls`) that borrows the handshake of the host it names.
 * WireGuard is an endpoint (sing-box 1.11 moved it there), in the config's `endpoints`.
 */
import type { Security, Server } from '../../../shared/domain/server';
import type { CoreProfile } from '../capabilities';
import { certificateCheck } from '../cert-check';
import { UnsupportedServerError } from '../errors';
import { bareAddress } from '../outbound';
import { splitEarlyData } from '../stream';
import { pluginOptions } from '../support-names';
import { unsupportedReason } from '../support';
import { alwaysTls, singBoxMethod } from './support';

type Json = Record<string, unknown>;

export interface SingBoxPieces {
  outbounds: Json[];
  endpoints: Json[];
}

export interface SingBoxOutboundOptions {
  /** Tag of the outbound the server is dialled through (a chained server's upstream). */
  detour?: string;
  /** SO_MARK on the connections to the server (Linux), so system-wide capture lets them pass. */
  routingMark?: number;
}

export const shadowTlsTag = (tag: string): string => `${tag}-shadowtls`;

export function singBoxOutbound(server: Server, core: CoreProfile, tag: string, opts: SingBoxOutboundOptions = {}): SingBoxPieces {
  const reason = unsupportedReason(server, core);
  if (reason) throw new UnsupportedServerError(server.name, reason);
  const address = bareAddress(server.address);
  const dial: Json = { ...(opts.detour ? { detour: opts.detour } : {}), ...(opts.routingMark !== undefined && !opts.detour ? { routing_mark: opts.routingMark } : {}) };
  const at = { server: address, server_port: server.port };
  switch (server.protocol) {
    case 'vmess':
      return one({ type: 'vmess', tag, ...at, uuid: server.uuid, security: server.cipher.toLowerCase() || 'auto', alter_id: server.alterId, ...stream(server, core), ...dial });
    case 'vless':
      return one({ type: 'vless', tag, ...at, uuid: server.uuid, ...(server.flow ? { flow: server.flow } : {}), ...stream(server, core), ...dial });
    case 'trojan':
      return one({ type: 'trojan', tag, ...at, password: server.password, ...stream(server, core), ...dial });
    case 'shadowsocks':
      return shadowsocks(server, core, tag, dial);
    case 'socks': {
      const auth = server.username || server.password ? { username: server.username ?? '', password: server.password ?? '' } : {};
      return one({ type: 'socks', tag, ...at, version: '5', ...auth, ...dial });
    }
    case 'http': {
      const auth = server.username || server.password ? { username: server.username ?? '', password: server.password ?? '' } : {};
      return one({ type: 'http', tag, ...at, ...auth, ...(server.security.type === 'tls' ? { tls: tlsFor(server, core) } : {}), ...dial });
    }
    case 'hysteria2': {
      const out: Json = { type: 'hysteria2', tag, ...at, ...hopping(server.portHopping), password: server.password, tls: tlsFor(server, core) };
      if (server.upMbps) out.up_mbps = server.upMbps;
      if (server.downMbps) out.down_mbps = server.downMbps;
      if (server.obfs) out.obfs = { type: 'salamander', password: server.obfs.password };
      return one({ ...out, ...dial });
    }
    case 'hysteria': {
      const out: Json = { type: 'hysteria', tag, ...at, ...hopping(server.portHopping), up_mbps: server.upMbps, down_mbps: server.downMbps };
      if (server.auth) out.auth_str = server.auth;
      if (server.obfs) out.obfs = server.obfs;
      // Hysteria v1 servers answer only their own ALPN ("hysteria" unless configured otherwise).
      out.tls = tlsFor(server, core, ['hysteria']);
      return one({ ...out, ...dial });
    }
    case 'tuic': {
      const out: Json = { type: 'tuic', tag, ...at, uuid: server.uuid, password: server.password };
      if (server.congestionControl) out.congestion_control = server.congestionControl;
      if (server.udpRelayMode) out.udp_relay_mode = server.udpRelayMode;
      out.tls = tlsFor(server, core, ['h3']);
      return one({ ...out, ...dial });
    }
    case 'anytls':
      return one({ type: 'anytls', tag, ...at, password: server.password, tls: tlsFor(server, core), ...dial });
    case 'naive': {
      const auth = server.username || server.password ? { username: server.username ?? '', password: server.password ?? '' } : {};
      return one({ type: 'naive', tag, ...at, ...auth, ...(server.quic ? { quic: true } : {}), tls: tlsFor(server, core), ...dial });
    }
    case 'wireguard': {
      const peer: Json = { address, port: server.port, public_key: server.publicKey, allowed_ips: ['0.0.0.0/0', '::/0'] };
      if (server.preSharedKey) peer.pre_shared_key = server.preSharedKey;
      if (server.reserved?.length) peer.reserved = server.reserved;
      const endpoint: Json = { type: 'wireguard', tag, address: server.localAddresses, private_key: server.privateKey, peers: [peer], ...dial };
      if (server.mtu) endpoint.mtu = server.mtu;
      return { outbounds: [], endpoints: [endpoint] };
    }
  }
}

function one(outbound: Json): SingBoxPieces {
  return { outbounds: [outbound], endpoints: [] };
}

/** `443,20000-30000` → server_ports ["443:443", "20000:30000"] (sing-box writes ranges with a colon). */
function hopping(ports: string | undefined): Json {
  if (!ports) return {};
  return { server_ports: ports.split(',').map((part) => (part.includes('-') ? part.replace('-', ':') : `${part}:${part}`)) };
}

function shadowsocks(server: Extract<Server, { protocol: 'shadowsocks' }>, core: CoreProfile, tag: string, dial: Json): SingBoxPieces {
  const base: Json = { type: 'shadowsocks', tag, server: bareAddress(server.address), server_port: server.port, method: singBoxMethod(server.method), password: server.password };
  const plugin = server.plugin;
  if (plugin?.name === 'shadow-tls') {
    const opts = pluginOptions(plugin.options);
    const version = Number(opts.get('version') ?? '3');
    const tls: Json = { enabled: true, server_name: opts.get('host') };
    const fingerprint = server.security.fingerprint;
    // ShadowTLS v3 is told apart from a browser only by its ClientHello: look like one where the build can.
    if (core.capabilities.features.has('tls-fingerprint')) tls.utls = { enabled: true, fingerprint: fingerprint?.toLowerCase() || 'chrome' };
    const helper: Json = { type: 'shadowtls', tag: shadowTlsTag(tag), server: bareAddress(server.address), server_port: server.port, version, tls, ...dial };
    if (version > 1) helper.password = opts.get('password');
    // The shadowsocks stream rides inside the ShadowTLS connection; its own address is not dialled.
    return { outbounds: [{ ...base, detour: shadowTlsTag(tag) }, helper], endpoints: [] };
  }
  if (plugin) {
    // sing-box runs obfs-local and v2ray-plugin itself, from the same SIP003 option string.
    const name = plugin.name === 'simple-obfs' ? 'obfs-local' : plugin.name;
    return one({ ...base, plugin: name, plugin_opts: plugin.options, ...dial });
  }
  return one({ ...base, ...stream(server, core), ...dial });
}

/** The `transport` and `tls` of a vmess / vless / trojan / shadowsocks outbound. */
function stream(server: Server, core: CoreProfile): Json {
  const out: Json = {};
  const transport = transportFor(server);
  if (transport) out.transport = transport;
  if (server.security.type !== 'none') out.tls = tlsFor(server, core);
  return out;
}

function hostList(host: string | undefined): string[] {
  return (host ?? '')
    .split(',')
    .map((h) => h.trim())
    .filter(Boolean);
}

function transportFor(server: Server): Json | null {
  const t = server.transport;
  const host = hostList(t.host);
  switch (t.network) {
    case 'ws': {
      const { path, earlyData } = splitEarlyData(t.path || '/');
      const ws: Json = { type: 'ws', path };
      if (host[0]) ws.headers = { Host: host[0] };
      if (earlyData) {
        ws.max_early_data = earlyData;
        // Xray's and v2ray's servers read early data from this header (the `?ed=` links' convention).
        ws.early_data_header_name = 'Sec-WebSocket-Protocol';
      }
      return ws;
    }
    case 'grpc':
      return { type: 'grpc', service_name: t.serviceName ?? '' };
    case 'h2':
      return { type: 'http', ...(host.length ? { host } : {}), path: t.path || '/' };
    case 'httpupgrade':
      return { type: 'httpupgrade', path: t.path || '/', ...(host[0] ? { host: host[0] } : {}) };
    case 'quic':
      return { type: 'quic' };
    default:
      return null;
  }
}

function isIp(address: string): boolean {
  return address.includes(':') || /^\d{1,3}(\.\d{1,3}){3}$/.test(address);
}

/** sing-box's outbound TLS block; `defaultAlpn` where the protocol's servers expect one. */
function tlsFor(server: Server, core: CoreProfile, defaultAlpn?: string[]): Json {
  const security: Security = server.security;
  const tls: Json = { enabled: true };
  const name = security.sni || hostList(server.transport.host)[0] || (isIp(bareAddress(server.address)) ? undefined : bareAddress(server.address));
  if (name) tls.server_name = name;
  const alpn = security.alpn?.length ? security.alpn : defaultAlpn;
  if (alpn) tls.alpn = alpn;
  else if (server.protocol === 'http') tls.alpn = ['http/1.1'];
  const fingerprint = security.fingerprint?.toLowerCase();
  const utls = core.capabilities.features.has('tls-fingerprint');
  if (security.type === 'reality') {
    // sing-box's REALITY client is built on uTLS and needs a fingerprint; links default to chrome.
    tls.utls = { enabled: true, fingerprint: fingerprint || 'chrome' };
    tls.reality = { enabled: true, public_key: security.publicKey ?? '', short_id: security.shortId ?? '' };
    return tls;
  }
  if (fingerprint && utls && !alwaysQuic(server)) tls.utls = { enabled: true, fingerprint };
  // A pin sing-box cannot write was refused by unsupportedReason unless the link also allows skipping verification.
  if (certificateCheck(security, core.capabilities.features).fields.allowInsecure) tls.insecure = true;
  return tls;
}

/** QUIC protocols: their TLS is quic-go's, which has no uTLS. */
function alwaysQuic(server: Server): boolean {
  return alwaysTls(server) && server.protocol !== 'anytls' && !(server.protocol === 'naive' && !server.quic);
}
