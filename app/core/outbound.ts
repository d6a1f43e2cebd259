import { hostPort, type Server } from '../../shared/domain/server';
import type { CoreProfile } from './capabilities';
import { certificateCheck } from './cert-check';
import { UnsupportedServerError } from './errors';
import { streamSettingsFor } from './stream';
import { unsupportedReason } from './support';

type Json = Record<string, unknown>;

export interface OutboundOptions {
  /** Tag of the outbound this one dials through (a chained server's upstream). */
  viaTag?: string;
}

/**
 * One outbound of a v2ray-family config for `server`, tagged `tag`. Throws
 * UnsupportedServerError (naming the server, never its credentials) when the core cannot run it.
 * IPv6 addresses are written bare ("2001:db8::1"), as these cores expect in `address`.
 */
export function outboundFor(server: Server, core: CoreProfile, tag: string, opts: OutboundOptions = {}): Json {
  const reason = unsupportedReason(server, core);
  if (reason) throw new UnsupportedServerError(server.name, reason);
  const outbound: Json = { tag, ...protocolPart(server, core) };
  // WireGuard runs its own UDP transport, Hysteria2 its own QUIC; the others ride the stream settings.
  if (server.protocol === 'hysteria2') outbound.streamSettings = hysteriaStreamSettings(server, core);
  else if (server.protocol !== 'wireguard') outbound.streamSettings = streamSettingsFor(server, core);
  if (opts.viaTag) chainThrough(outbound, opts.viaTag, core);
  return outbound;
}

/** Dial this outbound's connections through the outbound tagged `viaTag`. */
function chainThrough(outbound: Json, viaTag: string, core: CoreProfile): void {
  const features = core.capabilities.features;
  if (features.has('dialerProxy')) {
    const stream = (outbound.streamSettings as Json | undefined) ?? {};
    outbound.streamSettings = stream;
    stream.sockopt = { ...((stream.sockopt as Json | undefined) ?? {}), dialerProxy: viaTag };
  } else if (features.has('proxySettings-transportLayer')) {
    outbound.proxySettings = { tag: viaTag, transportLayer: true };
  } else if (features.has('proxySettings')) {
    // v2ray 4.34: streamSettings are ignored with proxySettings; support.ts only lets plain TCP through.
    outbound.proxySettings = { tag: viaTag };
    delete outbound.streamSettings;
  } else {
    throw new Error(`${core.family} ${core.version} cannot chain outbounds`);
  }
}

/** "[2001:db8::1]" → "2001:db8::1" (subscriptions sometimes keep the brackets). */
export function bareAddress(address: string): string {
  return address.startsWith('[') && address.endsWith(']') ? address.slice(1, -1) : address;
}

function protocolPart(server: Server, core: CoreProfile): Json {
  const address = bareAddress(server.address);
  const port = server.port;
  switch (server.protocol) {
    case 'vmess':
      return {
        protocol: 'vmess',
        settings: {
          vnext: [{ address, port, users: [{ id: server.uuid, alterId: server.alterId, security: server.cipher.toLowerCase() || 'auto' }] }],
        },
      };
    case 'vless': {
      // unsupportedReason let anything but "none" through only for a core with VLESS Encryption.
      const user: Json = { id: server.uuid, encryption: server.encryption || 'none' };
      if (server.flow) user.flow = server.flow;
      return { protocol: 'vless', settings: { vnext: [{ address, port, users: [user] }] } };
    }
    case 'trojan':
      return { protocol: 'trojan', settings: { servers: [{ address, port, password: server.password }] } };
    case 'shadowsocks':
      return {
        protocol: 'shadowsocks',
        settings: { servers: [{ address, port, method: server.method.toLowerCase(), password: server.password }] },
      };
    case 'socks':
    case 'http': {
      const users = server.username || server.password ? [{ user: server.username ?? '', pass: server.password ?? '' }] : undefined;
      return { protocol: server.protocol, settings: { servers: [{ address, port, ...(users ? { users } : {}) }] } };
    }
    case 'wireguard': {
      const peer: Json = { publicKey: server.publicKey, endpoint: hostPort(address, port) };
      if (server.preSharedKey) peer.preSharedKey = server.preSharedKey;
      const settings: Json = { secretKey: server.privateKey, address: server.localAddresses, peers: [peer] };
      if (server.reserved?.length) settings.reserved = server.reserved;
      if (server.mtu) settings.mtu = server.mtu;
      // Xray run as root (system-wide mode) otherwise makes a kernel wg device, whose routes
      // carry some destinations past the tunnel; the userspace stack keeps every packet in the core.
      if (core.family === 'xray') settings.noKernelTun = true;
      return { protocol: 'wireguard', settings };
    }
    case 'hysteria2':
      // Xray splits Hysteria2 into a proxy part (`hysteria`) and its QUIC transport (hysteriaStreamSettings).
      return { protocol: 'hysteria', settings: { version: 2, address, port } };
    case 'tuic':
    case 'hysteria':
    case 'anytls':
    case 'naive':
      throw new UnsupportedServerError(server.name, `${server.protocol} configs are not generated for ${core.family} ${core.version}`);
  }
}

/** How often a hopping Hysteria2 connection moves to another port (seconds): Hysteria's default. */
const HOP_INTERVAL_S = 30;

/** Xray's Hysteria2 transport: QUIC with TLS (always), auth = the server's password. */
function hysteriaStreamSettings(server: Extract<Server, { protocol: 'hysteria2' }>, core: CoreProfile): Json {
  const security = server.security;
  const tls: Json = { serverName: security.sni || server.address, alpn: security.alpn?.length ? security.alpn : ['h3'] };
  // As tlsSettings in stream.ts: the pin, the name to verify by, or allowInsecure where the core takes it.
  Object.assign(tls, certificateCheck(security, core.capabilities.features).fields);
  const hysteria: Json = { version: 2, auth: server.password };
  // Xray since March 2026 reads bandwidth and hopping only from finalmask.quicParams and ignores
  // them here (with a warning); older ones only here.
  const quicParams: Json = {};
  const moved = core.capabilities.features.has('hysteria2-quic-params');
  const transport = moved ? quicParams : hysteria;
  if (server.upMbps) transport[moved ? 'brutalUp' : 'up'] = `${server.upMbps} mbps`;
  if (server.downMbps) transport[moved ? 'brutalDown' : 'down'] = `${server.downMbps} mbps`;
  // unsupportedReason lets a range through only for a core whose transport hops ports.
  if (server.portHopping) {
    // Without an interval Xray 26.3.27 panics on the first dial ("non-positive interval for
    // NewTicker") and takes every connection down with it: Hysteria's own default, 30 s.
    if (moved) quicParams.udpHop = { ports: server.portHopping, interval: HOP_INTERVAL_S };
    else hysteria.udphop = { port: server.portHopping };
  }
  const stream: Json = { network: 'hysteria', security: 'tls', tlsSettings: tls, hysteriaSettings: hysteria };
  const finalmask: Json = {};
  // unsupportedReason lets obfuscation through only as salamander, for a core that masks with it.
  if (server.obfs) finalmask.udp = [{ type: 'salamander', settings: { password: server.obfs.password } }];
  if (Object.keys(quicParams).length) finalmask.quicParams = quicParams;
  if (Object.keys(finalmask).length) stream.finalmask = finalmask;
  return stream;
}
