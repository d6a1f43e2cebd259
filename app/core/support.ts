import type { Network, Protocol, SecurityType, Server } from '../../shared/domain/server';
import { type CoreProfile, coreLabel, LEGACY_STREAM_METHODS, SS2022_METHODS } from './capabilities';
import { certificateCheck } from './cert-check';
import { needs, NETWORK_NAMES, pluginOptions, PROTOCOL_NAMES, SECURITY_NAMES } from './support-names';
import { singBoxProblem } from './sing-box/support';

export { pluginOptions } from './support-names';

/** VMess body ciphers every v2ray-family core knows; anything else is refused rather than guessed. */
export const VMESS_CIPHERS = new Set(['auto', 'aes-128-gcm', 'chacha20-poly1305', 'none', 'zero']);
/** VLESS flows that still exist (Xray ≥ 1.8.0); the XTLS v1 flows (-direct, -splice, -origin) are gone everywhere. */
export const VISION_FLOWS = new Set(['xtls-rprx-vision', 'xtls-rprx-vision-udp443']);
/** VLESS Encryption as Xray writes it: `mlkem768x25519plus.<mode>.<0rtt|1rtt>.[padding.]<keys…>`. */
export const VLESS_ENCRYPTION = /^mlkem768x25519plus\.(native|xorpub|random)\.[01]rtt\.[\w.-]+$/;
export const TCP_HEADER_TYPES = new Set(['none', 'http']);
/** mKCP / QUIC packet headers. */
export const PACKET_HEADER_TYPES = new Set(['none', 'srtp', 'utp', 'wechat-video', 'dtls', 'wireguard']);
export const QUIC_SECURITIES = new Set(['none', 'aes-128-gcm', 'chacha20-poly1305']);

/** Which cores do run a thing this core lacks: the hint after "needs". */
const PROTOCOL_HINTS: Partial<Record<Protocol, string>> = {
  vless: 'v2ray ≥ 4.27 or Xray',
  trojan: 'v2ray ≥ 4.31 or Xray',
  wireguard: 'Xray',
  hysteria2: 'Xray ≥ 26.1.13',
  tuic: 'sing-box (no v2ray or Xray version has TUIC)',
  hysteria: 'sing-box (Xray has only Hysteria2)',
  anytls: 'sing-box ≥ 1.12',
  naive: 'sing-box ≥ 1.13 built with NaiveProxy',
};
const NETWORK_HINTS: Partial<Record<Network, string>> = {
  grpc: 'v2ray ≥ 4.36, v2ray 5 or Xray',
  httpupgrade: 'Xray ≥ 1.8.9 or v2ray 5',
  xhttp: 'Xray ≥ 1.8.16',
  h2: 'v2ray or Xray before 24.12 (newer Xray replaced it with XHTTP)',
  quic: 'v2ray or Xray before 24.9.30',
  kcp: 'v2ray or Xray',
};
const SECURITY_HINTS: Partial<Record<SecurityType, string>> = { reality: 'Xray ≥ 1.8.0' };

/**
 * Why `core` cannot run `server` (and, for a chained server, its upstream `via`), as the sentence
 * the UI shows: "not supported by v2ray 4.34.0: REALITY needs Xray ≥ 1.8.0". Null when it can run.
 * Never mentions credentials.
 */
export function unsupportedReason(server: Server, core: CoreProfile, via?: Server): string | null {
  const own = endpointProblem(server, core);
  if (own) return `not supported by ${coreLabel(core)}: ${own}`;
  if (via) {
    // The config carries one hop before the server; a longer chain would lose its first hops.
    if (via.via) return `reached through ${via.name}, which is itself reached through another server: a chain has one front here`;
    const upstream = endpointProblem(via, core);
    if (upstream) return `not supported by ${coreLabel(core)}: its upstream server ${via.name} cannot run (${upstream})`;
    const chain = chainProblem(server, core);
    if (chain) return `not supported by ${coreLabel(core)}: ${chain}`;
  }
  return null;
}

function endpointProblem(server: Server, core: CoreProfile): string | null {
  if (core.family === 'sing-box') return singBoxProblem(server, core);
  const caps = core.capabilities;
  if (!caps.protocols.has(server.protocol)) {
    return needs(PROTOCOL_NAMES[server.protocol], PROTOCOL_HINTS[server.protocol]);
  }
  // WireGuard and Hysteria2 bring their own transport (UDP / QUIC); the stream settings of the
  // entry are not used for them.
  if (server.protocol === 'wireguard' || server.protocol === 'hysteria2') return protocolProblem(server, core) ?? certificateProblem(server, core);
  const { transport, security } = server;
  if (!caps.networks.has(transport.network)) return needs(NETWORK_NAMES[transport.network], NETWORK_HINTS[transport.network]);
  if (!caps.securities.has(security.type)) return needs(SECURITY_NAMES[security.type], SECURITY_HINTS[security.type]);
  return protocolProblem(server, core) ?? transportProblem(server, core) ?? securityProblem(server) ?? certificateProblem(server, core);
}

/** A certificate pin the core cannot check, where skipping verification would be less safe than the entry asks. */
function certificateProblem(server: Server, core: CoreProfile): string | null {
  if (server.security.type !== 'tls') return null;
  return certificateCheck(server.security, core.capabilities.features).unsupported;
}


function protocolProblem(server: Server, core: CoreProfile): string | null {
  const caps = core.capabilities;
  switch (server.protocol) {
    case 'vmess':
      if (!VMESS_CIPHERS.has(server.cipher.toLowerCase())) return `the VMess cipher "${server.cipher}" is unknown`;
      if (server.alterId > 0 && core.family === 'xray') return 'VMess with alterId > 0 (legacy MD5 authentication) was removed from Xray; the server must offer alterId 0 (AEAD)';
      return null;
    case 'vless': {
      const encryption = server.encryption || 'none';
      if (encryption !== 'none') {
        if (!VLESS_ENCRYPTION.test(encryption)) return `VLESS encryption "${encryption.slice(0, 40)}" is unknown (only "none" or mlkem768x25519plus)`;
        if (!caps.features.has('vless-encryption')) return 'VLESS Encryption (mlkem768x25519plus) needs Xray ≥ 25.9.5';
      }
      if (server.flow) {
        if (!VISION_FLOWS.has(server.flow)) return `the VLESS flow "${server.flow}" is obsolete (XTLS v1) and no current core runs it`;
        if (!caps.features.has('vision-flow')) return `the VLESS flow ${server.flow} needs Xray ≥ 1.8.0`;
        // Vision runs over TLS, REALITY or VLESS Encryption: it needs one of them around it.
        if (server.security.type === 'none' && encryption === 'none') return `the VLESS flow ${server.flow} needs TLS, REALITY or VLESS Encryption`;
      }
      return null;
    }
    case 'shadowsocks': {
      const method = server.method.toLowerCase();
      if (server.plugin && !isV2rayPluginAsWebSocket(server.plugin)) {
        return `the shadowsocks plugin "${server.plugin.name}" is a separate program the core does not run`;
      }
      if (!caps.shadowsocksMethods.has(method)) {
        if ((SS2022_METHODS as readonly string[]).includes(method)) return `Shadowsocks 2022 (${method}) needs Xray ≥ 1.6.0`;
        if ((LEGACY_STREAM_METHODS as readonly string[]).includes(method)) return `the stream cipher ${method} was removed from this core (only AEAD ciphers remain)`;
        return `the Shadowsocks cipher "${server.method}" is not available in this core`;
      }
      return null;
    }
    case 'wireguard':
      if (!server.localAddresses.length) return 'the WireGuard entry has no local address';
      return null;
    case 'hysteria2':
      if (server.portHopping && !caps.features.has('hysteria2-port-hopping')) {
        return `Hysteria2 port hopping (ports ${server.portHopping.slice(0, 40)}) is not supported by this core`;
      }
      if (server.obfs) {
        if (server.obfs.type !== 'salamander' || !caps.features.has('hysteria2-salamander')) return `Hysteria2 obfuscation (${server.obfs.type}) is not supported by this core`;
        // Xray refuses to start with a shorter one ("PSK must be at least 4 bytes").
        if (Buffer.byteLength(server.obfs.password) < 4) return 'the Hysteria2 salamander password is shorter than 4 bytes';
      }
      return null;
    default:
      return null;
  }
}

/**
 * The only SIP003 plugin a v2ray-family core can stand in for: v2ray-plugin in its WebSocket mode
 * is shadowsocks over WebSocket (optionally TLS), which the core speaks natively.
 */
export function isV2rayPluginAsWebSocket(plugin: { name: string; options: string }): boolean {
  if (plugin.name !== 'v2ray-plugin') return false;
  const mode = pluginOptions(plugin.options).get('mode') ?? 'websocket';
  return mode === 'websocket';
}

function transportProblem(server: Server, core: CoreProfile): string | null {
  const t = server.transport;
  switch (t.network) {
    case 'tcp':
      if (t.headerType && !TCP_HEADER_TYPES.has(t.headerType)) return `the TCP header type "${t.headerType}" is unknown`;
      return null;
    case 'kcp':
    case 'quic':
      if (t.headerType && !PACKET_HEADER_TYPES.has(t.headerType)) return `the ${NETWORK_NAMES[t.network]} header type "${t.headerType}" is unknown`;
      if (t.network === 'quic' && t.quicSecurity && !QUIC_SECURITIES.has(t.quicSecurity)) return `the QUIC security "${t.quicSecurity}" is unknown`;
      return null;
    case 'xhttp':
      if (t.mode === 'stream-one' && core.capabilities.features.has('splithttp-name')) return 'XHTTP stream-one mode needs a newer Xray (24.11 or later, where SplitHTTP became XHTTP)';
      return null;
    default:
      return null;
  }
}

/** Transports REALITY can wrap (Xray refuses it over WebSocket, HTTPUpgrade, mKCP, QUIC). */
const REALITY_NETWORKS = new Set(['tcp', 'grpc', 'xhttp', 'h2']);

function securityProblem(server: Server): string | null {
  if (server.security.type !== 'reality') return null;
  if (!server.security.publicKey) return 'the REALITY entry has no public key';
  if (!REALITY_NETWORKS.has(server.transport.network)) return `REALITY does not work over ${NETWORK_NAMES[server.transport.network]} (only TCP, gRPC, XHTTP or HTTP/2)`;
  return null;
}

/**
 * Chaining: v2ray 4 before 4.35 dials a chained outbound through its upstream with
 * `proxySettings`, which drops the chained outbound's own streamSettings; only a plain TCP
 * server without TLS survives that unchanged.
 */
function chainProblem(server: Server, core: CoreProfile): string | null {
  const f = core.capabilities.features;
  if (f.has('dialerProxy') || f.has('proxySettings-transportLayer') || f.has('detour')) return null;
  if (!f.has('proxySettings')) return 'chained servers are not supported';
  const plain = server.transport.network === 'tcp' && (server.transport.headerType ?? 'none') === 'none' && server.security.type === 'none';
  return plain ? null : `chaining a server over ${NETWORK_NAMES[server.transport.network]}${server.security.type === 'none' ? '' : ` with ${SECURITY_NAMES[server.security.type]}`} needs v2ray ≥ 4.35 or Xray (this core drops the transport of a chained server)`;
}

/** Splits servers into those the core runs and those it cannot (with the reason to show). */
export function splitRunnable<T extends { server: Server; via?: Server }>(
  entries: readonly T[],
  core: CoreProfile,
): { runnable: T[]; unsupported: { entry: T; reason: string }[] } {
  const runnable: T[] = [];
  const unsupported: { entry: T; reason: string }[] = [];
  for (const entry of entries) {
    const reason = unsupportedReason(entry.server, core, entry.via);
    if (reason) unsupported.push({ entry, reason });
    else runnable.push(entry);
  }
  return { runnable, unsupported };
}
