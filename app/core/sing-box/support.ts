/**
 * Why sing-box cannot carry a server, in the words the UI shows after "not supported by
 * sing-box 1.14.1: ", or null when it can. Pure: the build's abilities come from its profile
 * (capabilities.ts, confirmed by `sing-box check` in detect.ts). The rules are table-tested in
 * support.test.ts; what they guard is what sing-box itself refuses at start, or accepts and then
 * runs differently from the link.
 */
import type { Server, Transport } from '../../../shared/domain/server';
import type { CoreProfile } from '../capabilities';
import { certificateCheck } from '../cert-check';
import { needs, NETWORK_NAMES, pluginOptions, PROTOCOL_NAMES, SECURITY_NAMES } from '../support-names';
import { atLeast } from '../version';
import { SING_BOX_MINIMUM, TAG_OF } from './capabilities';

/** VMess body ciphers sing-box's vmess outbound takes (`security`). */
export const SING_BOX_VMESS_CIPHERS = new Set(['auto', 'none', 'zero', 'aes-128-gcm', 'chacha20-poly1305', 'aes-128-ctr']);
/** uTLS fingerprints sing-box knows (`tls.utls.fingerprint`); it refuses to start with any other. */
export const SING_BOX_FINGERPRINTS = new Set(['chrome', 'firefox', 'edge', 'safari', '360', 'qq', 'ios', 'android', 'random', 'randomized']);
export const TUIC_CONGESTION = new Set(['cubic', 'new_reno', 'bbr']);
export const TUIC_RELAY_MODES = new Set(['native', 'quic']);
/** Cipher names other clients write for the ones sing-box calls by their IETF names. */
const METHOD_ALIASES: Record<string, string> = { 'chacha20-poly1305': 'chacha20-ietf-poly1305', 'xchacha20-poly1305': 'xchacha20-ietf-poly1305' };

/** The shadowsocks method as sing-box names it. */
export function singBoxMethod(method: string): string {
  const lower = method.toLowerCase();
  return METHOD_ALIASES[lower] ?? lower;
}

/** `443,20000-30000`: ports and ranges, the form port hopping is kept in. */
const PORT_LIST = /^\d{1,5}(?:-\d{1,5})?(?:,\d{1,5}(?:-\d{1,5})?)*$/;

/** Where a missing ability comes from: the build tag, or a newer release. */
const PROTOCOL_TAGS: Partial<Record<Server['protocol'], string>> = {
  wireguard: TAG_OF.wireguard,
  naive: TAG_OF.naive,
  hysteria: TAG_OF.quic,
  hysteria2: TAG_OF.quic,
  tuic: TAG_OF.quic,
};

export function singBoxProblem(server: Server, core: CoreProfile): string | null {
  if (!atLeast(core.version, SING_BOX_MINIMUM)) return `this app drives sing-box ${SING_BOX_MINIMUM} or later`;
  const caps = core.capabilities;
  if (!caps.protocols.has(server.protocol)) {
    const tag = PROTOCOL_TAGS[server.protocol];
    if (server.protocol === 'naive' && !atLeast(core.version, '1.13.0')) return 'NaiveProxy needs sing-box ≥ 1.13';
    return tag ? `${PROTOCOL_NAMES[server.protocol]} is not in this build (it was built without ${tag})` : needs(PROTOCOL_NAMES[server.protocol], undefined);
  }
  return protocolProblem(server, core) ?? streamProblem(server, core) ?? tlsProblem(server, core);
}

/** Protocols that always run over TLS (or QUIC's TLS) in sing-box, whatever the entry's `security` says. */
export function alwaysTls(server: Server): boolean {
  return ['hysteria', 'hysteria2', 'tuic', 'anytls', 'naive'].includes(server.protocol);
}

/** The protocols that ride the entry's transport and security (the rest bring their own). */
function ridesTransport(server: Server): boolean {
  return ['vmess', 'vless', 'trojan'].includes(server.protocol) || (server.protocol === 'shadowsocks' && !server.plugin);
}

function protocolProblem(server: Server, core: CoreProfile): string | null {
  const caps = core.capabilities;
  switch (server.protocol) {
    case 'vmess':
      if (!SING_BOX_VMESS_CIPHERS.has(server.cipher.toLowerCase() || 'auto')) return `the VMess cipher "${server.cipher}" is unknown`;
      return null;
    case 'vless': {
      if ((server.encryption || 'none') !== 'none') return 'VLESS Encryption (mlkem768x25519plus) needs Xray ≥ 25.9.5';
      if (server.flow && server.flow !== 'xtls-rprx-vision') return `the VLESS flow "${server.flow}" is not one sing-box has (only xtls-rprx-vision)`;
      if (server.flow && server.security.type === 'none') return `the VLESS flow ${server.flow} needs TLS or REALITY`;
      return null;
    }
    case 'shadowsocks': {
      const method = singBoxMethod(server.method);
      if (!caps.shadowsocksMethods.has(method)) return `the Shadowsocks cipher "${server.method}" is not available in this build`;
      if (server.plugin) return pluginProblem(server.plugin, core);
      return null;
    }
    case 'hysteria2':
      if (server.portHopping && !PORT_LIST.test(server.portHopping)) return `the Hysteria2 port list "${server.portHopping.slice(0, 40)}" is not ports and ranges`;
      if (server.obfs && server.obfs.type !== 'salamander') return `Hysteria2 obfuscation (${server.obfs.type}) is not supported by this core`;
      return null;
    case 'hysteria':
      if (server.carrier && server.carrier !== 'udp') return `Hysteria over ${server.carrier} needs the original Hysteria client (sing-box speaks it over UDP only)`;
      if (!(server.upMbps > 0) || !(server.downMbps > 0)) return 'the Hysteria entry gives no upload and download speeds, which Hysteria v1 needs';
      if (server.portHopping && !PORT_LIST.test(server.portHopping)) return `the Hysteria port list "${server.portHopping.slice(0, 40)}" is not ports and ranges`;
      return null;
    case 'tuic':
      if (server.congestionControl && !TUIC_CONGESTION.has(server.congestionControl)) return `the TUIC congestion control "${server.congestionControl}" is unknown (cubic, new_reno or bbr)`;
      if (server.udpRelayMode && !TUIC_RELAY_MODES.has(server.udpRelayMode)) return `the TUIC UDP relay mode "${server.udpRelayMode}" is unknown (native or quic)`;
      return null;
    case 'wireguard':
      if (!server.localAddresses.length) return 'the WireGuard entry has no local address';
      return null;
    case 'socks':
      if (server.security.type !== 'none') return 'SOCKS over TLS is not supported by this core';
      return null;
    default:
      return null;
  }
}

function pluginProblem(plugin: { name: string; options: string }, core: CoreProfile): string | null {
  const f = core.capabilities.features;
  const opts = pluginOptions(plugin.options);
  switch (plugin.name) {
    case 'obfs-local':
    case 'simple-obfs':
      if (!f.has('ss-plugin-obfs')) return `the shadowsocks plugin "${plugin.name}" is not available in this core`;
      if (!['http', 'tls'].includes(opts.get('obfs') ?? '')) return `the ${plugin.name} mode "${opts.get('obfs') ?? ''}" is unknown (http or tls)`;
      return null;
    case 'v2ray-plugin':
      if (!f.has('ss-plugin-v2ray')) return 'the shadowsocks plugin "v2ray-plugin" is not available in this core';
      if ((opts.get('mode') ?? 'websocket') !== 'websocket') return `v2ray-plugin in ${opts.get('mode')} mode is not supported by this core (only websocket)`;
      return null;
    case 'shadow-tls': {
      if (!f.has('shadowtls')) return 'ShadowTLS is not available in this core';
      const version = Number(opts.get('version') ?? '3');
      if (![1, 2, 3].includes(version)) return `ShadowTLS version "${opts.get('version')}" is unknown (1, 2 or 3)`;
      if (version > 1 && !opts.get('password')) return `the ShadowTLS v${version} entry has no password`;
      if (!opts.get('host')) return 'the ShadowTLS entry names no host to borrow the handshake from';
      return null;
    }
    default:
      return `the shadowsocks plugin "${plugin.name}" is a separate program the core does not run`;
  }
}

function streamProblem(server: Server, core: CoreProfile): string | null {
  if (!ridesTransport(server)) return null;
  const caps = core.capabilities;
  const t: Transport = server.transport;
  if (!caps.networks.has(t.network)) return `${NETWORK_NAMES[t.network]} is not available in sing-box`;
  if (t.network === 'tcp' && t.headerType && t.headerType !== 'none') return `the TCP header obfuscation "${t.headerType}" is not available in sing-box`;
  if (t.network === 'quic') {
    if ((t.quicSecurity ?? 'none') !== 'none' || (t.headerType ?? 'none') !== 'none') return 'QUIC transport encryption and headers (v2ray\'s quicSettings) are not available in sing-box';
    if (server.security.type !== 'tls') return 'the QUIC transport needs TLS';
  }
  if (!caps.securities.has(server.security.type)) {
    return server.security.type === 'reality' ? `REALITY is not in this build (it was built without ${TAG_OF.utls})` : `${SECURITY_NAMES[server.security.type]} is not available in this core`;
  }
  if (server.security.type === 'reality') {
    if (!server.security.publicKey) return 'the REALITY entry has no public key';
    if (!['tcp', 'grpc', 'h2'].includes(t.network)) return `REALITY does not work over ${NETWORK_NAMES[t.network]} in sing-box (only TCP, gRPC or HTTP/2)`;
  }
  return null;
}

function tlsProblem(server: Server, core: CoreProfile): string | null {
  const tls = alwaysTls(server) || server.security.type === 'tls' || server.security.type === 'reality' || (server.protocol === 'shadowsocks' && server.plugin?.name === 'shadow-tls');
  if (!tls) return null;
  const fingerprint = server.security.fingerprint;
  if (fingerprint && core.capabilities.features.has('tls-fingerprint') && !SING_BOX_FINGERPRINTS.has(fingerprint.toLowerCase())) {
    return `the uTLS fingerprint "${fingerprint}" is not one sing-box knows`;
  }
  if (server.security.type === 'reality') return null;
  // sing-box pins only the public key (`certificate_public_key_sha256`), never the whole
  // certificate a link's `pcs` names: such a pin cannot be written for it.
  return certificateCheck(server.security, core.capabilities.features).unsupported;
}
