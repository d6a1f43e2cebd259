/**
 * The shape of what a core can do, shared by the v2ray-family table (capabilities.ts) and
 * sing-box's (sing-box/capabilities.ts).
 */
import type { Network, Protocol, SecurityType } from '../../shared/domain/server';

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
   * mKCP's packet header and obfuscation written as FinalMask UDP masks (`header-*`, then
   * `mkcp-aes128gcm` with the seed or `mkcp-original`): Xray 26 refuses the old `header` / `seed`
   * fields. The same bytes on the wire as the old fields, so old servers still match.
   */
  'kcp-finalmask',
  /**
   * DNS `skipFallback` (v2ray ≥ 4.37, v5, Xray): a resolver only ever asked about the names it
   * lists. Without it the DNS module asks every resolver when one is slow, so a domestic resolver
   * could be asked about a proxied name. Fields a core ignores cannot be checked by its config test.
   */
  'dns-skip-fallback',
  /** Chaining with an outbound's `detour` (sing-box). */
  'detour',
  /** ShadowTLS (v1–v3) in front of a shadowsocks server, as a `shadowtls` outbound it detours through (sing-box). */
  'shadowtls',
  /** The obfs-local (simple-obfs) and v2ray-plugin SIP003 plugins, run inside the core (sing-box). */
  'ss-plugin-obfs',
  'ss-plugin-v2ray',
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

/** Capabilities from plain lists, as the tables write them. */
export function capabilitySet(protocols: Protocol[], networks: Network[], securities: SecurityType[], features: CoreFeature[], methods: string[]): CoreCapabilities {
  return {
    protocols: new Set(protocols),
    networks: new Set(networks),
    securities: new Set(securities),
    features: new Set(features),
    shadowsocksMethods: new Set(methods),
  };
}
