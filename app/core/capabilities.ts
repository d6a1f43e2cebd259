import type { CoreInfo } from '../../shared/domain/connection';
import type { Network, Protocol, SecurityType } from '../../shared/domain/server';
import { atLeast, type CoreFamily } from './version';

/** Optional abilities that decide how (or whether) a server's config can be written. */
export const CORE_FEATURES = [
  /** VLESS `flow: xtls-rprx-vision` (Xray ≥ 1.8.0). */
  'vision-flow',
  /** Shadowsocks 2022 (`2022-blake3-*` methods). */
  'ss2022',
  /** gRPC `multiMode` (Xray). */
  'grpc-multi-mode',
  /** uTLS `fingerprint` in tlsSettings (Xray). */
  'tls-fingerprint',
  /**
   * tlsSettings `allowInsecure` (skip certificate verification): v2ray, and Xray before 26.2.6,
   * which replaced it with `pinnedPeerCertSha256` and refuses to start with it since 2026-06-01.
   */
  'tls-allow-insecure',
  /**
   * tlsSettings `pinnedPeerCertSha256` (Xray ≥ 26.1.18): hex SHA-256 of the server's whole
   * certificate, `,` between several. Not v2ray's `pinnedPeerCertificateChainSha256`, which hashes
   * the whole chain in base64: a link's pin cannot be written there.
   */
  'tls-pinned-cert',
  /** tlsSettings `verifyPeerCertByName` as a string (Xray ≥ 26.1.31; it replaced the `verifyPeerCertInNames` list). */
  'tls-verify-name',
  /** WebSocket early data: Xray reads `?ed=` from the path, v2ray 5 takes `maxEarlyData`. */
  'ws-early-data-path',
  'ws-early-data-field',
  /** wsSettings.host (Xray ≥ 1.8.10) instead of headers.Host. */
  'ws-host-field',
  /** Stats service over gRPC and per-outbound traffic counters. */
  'stats-api',
  'outbound-stats',
  'sendThrough',
  /** Chaining: `proxySettings.tag` (v2ray family; without `transportLayer` the chained outbound's streamSettings are ignored). */
  'proxySettings',
  /** `proxySettings.transportLayer: true` keeps the chained outbound's own transport (v2ray ≥ 4.35, v5). */
  'proxySettings-transportLayer',
  /** Chaining with `streamSettings.sockopt.dialerProxy` (Xray). */
  'dialerProxy',
  /** The XHTTP transport under its old name `splithttp` (Xray 1.8.16 – 24.x). */
  'splithttp-name',
  /** Hysteria2's salamander obfuscation, written as a `finalmask` UDP mask (Xray; confirmed by the binary). */
  'hysteria2-salamander',
  /** Hysteria2 port hopping, `hysteriaSettings.udphop` (Xray's Hysteria transport; confirmed by the binary). */
  'hysteria2-port-hopping',
  /**
   * The Hysteria transport's port hopping and bandwidth (`udpHop`, `brutalUp`, `brutalDown`) in
   * `finalmask.quicParams` (Xray PR 5772, March 2026; 26.3.27 has it). Such a core ignores them in
   * `hysteriaSettings` with only a warning: it dialled a hopping server's first port alone.
   * Confirmed by the binary: it refuses a hop interval under 5 s, a core without it ignores it.
   */
  'hysteria2-quic-params',
  /** VLESS Encryption, `encryption: "mlkem768x25519plus.…"` (Xray 25.9 and later; confirmed by the binary). */
  'vless-encryption',
  /** TLS ClientHello fragment, the `freedom` outbound's `fragment` (Xray; confirmed by the binary). */
  'freedom-fragment',
  /** UDP noise, the `freedom` outbound's `noises` (recent Xray; confirmed by the binary). */
  'freedom-noises',
  /**
   * DNS `skipFallback` (v2ray ≥ 4.37, v5, Xray): a resolver only ever asked about the names it
   * lists. Without it the DNS module asks every resolver when one is slow, so a domestic resolver
   * could be asked about a proxied name. Fields a core ignores cannot be checked by its config test.
   */
  'dns-skip-fallback',
] as const;
export type CoreFeature = (typeof CORE_FEATURES)[number];

export interface CoreCapabilities {
  protocols: Set<Protocol>;
  networks: Set<Network>;
  securities: Set<SecurityType>;
  features: Set<string>;
  /** Shadowsocks methods the core accepts (lower case, as written in configs). */
  shadowsocksMethods: Set<string>;
}

export interface CoreProfile extends CoreInfo {
  capabilities: CoreCapabilities;
  /**
   * Which capabilities were confirmed by the binary itself (each one a tiny config passed to its
   * config test) as opposed to taken from the table. Items absent from both sets were not checked.
   */
  verified: { confirmed: string[]; refuted: string[] };
}

export const AEAD_METHODS = ['aes-128-gcm', 'aes-256-gcm', 'chacha20-poly1305', 'chacha20-ietf-poly1305'] as const;
export const SS2022_METHODS = ['2022-blake3-aes-128-gcm', '2022-blake3-aes-256-gcm', '2022-blake3-chacha20-poly1305'] as const;
export const XCHACHA_METHODS = ['xchacha20-poly1305', 'xchacha20-ietf-poly1305'] as const;
export const PLAIN_METHODS = ['none', 'plain'] as const;
/** Stream ciphers of the original protocol: insecure and gone from current cores. */
export const LEGACY_STREAM_METHODS = [
  'aes-128-cfb',
  'aes-192-cfb',
  'aes-256-cfb',
  'aes-128-ctr',
  'aes-192-ctr',
  'aes-256-ctr',
  'chacha20',
  'chacha20-ietf',
  'rc4-md5',
] as const;

/**
 * What each family/version can run, from the cores' release history. The table is the claim;
 * `detectCore` then asks the binary about everything its config test can refute (protocols,
 * transports, shadowsocks methods) and corrects the table where the binary disagrees. Fields a
 * core silently ignores (vision flow, fingerprint, REALITY under v2ray 4) cannot be checked that
 * way and come from the table alone.
 */
export function capabilitiesFromTable(family: CoreFamily, version: string): CoreCapabilities {
  switch (family) {
    case 'v2ray':
      return atLeast(version, '5.0.0') ? v2ray5(version) : v2ray4(version);
    case 'xray':
      return xray(version);
    case 'sing-box':
      return singBox(version);
  }
}

function v2ray4(version: string): CoreCapabilities {
  const protocols: Protocol[] = ['vmess', 'shadowsocks', 'socks', 'http'];
  if (atLeast(version, '4.27.0')) protocols.push('vless');
  if (atLeast(version, '4.31.0')) protocols.push('trojan');
  const networks: Network[] = ['tcp', 'ws', 'h2', 'kcp', 'quic'];
  if (atLeast(version, '4.36.0')) networks.push('grpc');
  const features: CoreFeature[] = ['stats-api', 'outbound-stats', 'sendThrough', 'proxySettings', 'tls-allow-insecure'];
  if (atLeast(version, '4.35.0')) features.push('proxySettings-transportLayer');
  if (atLeast(version, '4.37.0')) features.push('ws-early-data-field', 'dns-skip-fallback');
  // v2fly dropped the stream ciphers (and kept only AEAD + none) in 4.x; the binary confirms which.
  return build(protocols, networks, ['none', 'tls'], features, [...AEAD_METHODS, ...PLAIN_METHODS]);
}

function v2ray5(_version: string): CoreCapabilities {
  // The v4 JSON format (which we generate) is still read by v5; shadowsocks 2022 exists only in
  // the v5 format, so it is not offered here.
  const networks: Network[] = ['tcp', 'ws', 'h2', 'kcp', 'quic', 'grpc', 'httpupgrade'];
  const features: CoreFeature[] = [
    'stats-api',
    'outbound-stats',
    'sendThrough',
    'proxySettings',
    'proxySettings-transportLayer',
    'ws-early-data-field',
    'dns-skip-fallback',
    'tls-allow-insecure',
  ];
  return build(['vmess', 'vless', 'trojan', 'shadowsocks', 'socks', 'http'], networks, ['none', 'tls'], features, [
    ...AEAD_METHODS,
    ...PLAIN_METHODS,
  ]);
}

function xray(version: string): CoreCapabilities {
  const protocols: Protocol[] = ['vmess', 'vless', 'trojan', 'shadowsocks', 'socks', 'http'];
  if (atLeast(version, '1.6.2')) protocols.push('wireguard');
  // Hysteria2 (as the `hysteria` proxy over the `hysteria` transport) arrived as an outbound in
  // Xray 26.1.13; the binary check confirms it.
  if (atLeast(version, '26.1.13')) protocols.push('hysteria2');
  const networks: Network[] = ['tcp', 'ws', 'grpc'];
  if (!xrayKcpNeedsFinalMask(version)) networks.push('kcp');
  // Xray 24.9.30 removed QUIC (and DomainSocket); the HTTP/2 transport went around 24.12 (folded
  // into XHTTP stream-one). Both boundaries are re-checked against the binary by detectCore.
  if (!atLeast(version, '24.9.30')) networks.push('quic');
  if (!atLeast(version, '24.12.0')) networks.push('h2');
  if (atLeast(version, '1.8.9')) networks.push('httpupgrade');
  if (atLeast(version, '1.8.16')) networks.push('xhttp');
  const securities: SecurityType[] = ['none', 'tls'];
  const features: CoreFeature[] = [
    'grpc-multi-mode',
    'tls-fingerprint',
    'ws-early-data-path',
    'stats-api',
    'outbound-stats',
    'sendThrough',
    'proxySettings',
    'dialerProxy',
    'dns-skip-fallback',
  ];
  if (atLeast(version, '1.8.0')) {
    securities.push('reality');
    features.push('vision-flow');
  }
  if (atLeast(version, '1.8.10')) features.push('ws-host-field');
  if (atLeast(version, '25.9.5')) features.push('vless-encryption');
  // 26.2.6 deprecated allowInsecure with a cut-off date (2026-06-01) after which the same binary
  // refuses the whole config; a config test before that date would pass, so the table decides.
  if (!atLeast(version, '26.2.6')) features.push('tls-allow-insecure');
  // Go's JSON decoding ignores fields a release does not know, so no config test can refute these:
  // the table decides. A core without them is handled by certificateCheck (cert-check.ts).
  if (atLeast(version, '26.1.18')) features.push('tls-pinned-cert');
  if (atLeast(version, '26.1.31')) features.push('tls-verify-name');
  // Fragment came to freedom in 1.8.1, the `noises` list in the 24.9 releases; the binary decides.
  if (atLeast(version, '1.8.1')) features.push('freedom-fragment');
  if (atLeast(version, '24.9.19')) features.push('freedom-noises');
  // Salamander came with Hysteria2 as a finalmask UDP mask; the binary check has the last word.
  if (atLeast(version, '26.1.13')) features.push('hysteria2-salamander');
  // Port hopping is part of the same Hysteria transport (`udphop`); the binary check has the last word.
  if (atLeast(version, '26.1.13')) features.push('hysteria2-port-hopping');
  // Moved to finalmask.quicParams in March 2026; the binary check has the last word.
  if (atLeast(version, '26.3.27')) features.push('hysteria2-quic-params');
  // SplitHTTP (1.8.16) was renamed XHTTP in the 24.11 releases.
  if (atLeast(version, '1.8.16') && !atLeast(version, '24.11.0')) features.push('splithttp-name');
  const methods: string[] = [...AEAD_METHODS, ...PLAIN_METHODS, ...XCHACHA_METHODS];
  if (atLeast(version, '1.6.0')) {
    features.push('ss2022');
    methods.push(...SS2022_METHODS);
  }
  return build(protocols, networks, securities, features, methods);
}

/**
 * Xray 26 moved mKCP's header and seed (and its default obfuscation) into FinalMask, which this
 * app does not write: a config without them would quietly not match the server.
 */
function xrayKcpNeedsFinalMask(version: string): boolean {
  return atLeast(version, '26.0.0');
}

/**
 * Limits the config test cannot see, because the core accepts the config and then behaves
 * differently: applied after the binary's checks so a passing check does not re-enable them.
 */
export function applySemanticLimits(family: CoreFamily, version: string, caps: CoreCapabilities): void {
  if (family === 'xray' && xrayKcpNeedsFinalMask(version)) caps.networks.delete('kcp');
}

function singBox(_version: string): CoreCapabilities {
  // Detected and reported, but its config format is not generated (yet): nothing is runnable.
  return build([], [], [], [], []);
}

function build(
  protocols: Protocol[],
  networks: Network[],
  securities: SecurityType[],
  features: CoreFeature[],
  methods: string[],
): CoreCapabilities {
  return {
    protocols: new Set(protocols),
    networks: new Set(networks),
    securities: new Set(securities),
    features: new Set(features),
    shadowsocksMethods: new Set(methods),
  };
}

/** "v2ray 4.34.0", "Xray 1.8.24", "sing-box 1.10.1": how the core is named to users. */
export function coreLabel(core: Pick<CoreInfo, 'family' | 'version'>): string {
  const name = core.family === 'xray' ? 'Xray' : core.family;
  return `${name} ${core.version}`;
}
