/**
 * What a sing-box build can carry. sing-box is not a v2ray-family core: it is driven here as the
 * carrier of the servers the main core cannot run (carrier.ts), with its own config format
 * (outbound.ts). Its abilities depend on the version and on the build tags it was compiled with
 * (`sing-box version` prints them: `Tags: with_gvisor,with_quic,…`); detect.ts then confirms the
 * table with `sing-box check`, which refuses unknown fields and outbounds missing from the build.
 */
import type { Network, Protocol, SecurityType } from '../../../shared/domain/server';
import { AEAD_METHODS, capabilitySet, type CoreCapabilities, type CoreFeature, LEGACY_STREAM_METHODS, PLAIN_METHODS, SS2022_METHODS, XCHACHA_METHODS } from '../capability-sets';
import { atLeast } from '../version';

/**
 * The oldest sing-box driven: route rule actions (1.11) replace the `block` outbound that 1.13
 * removed, and AnyTLS arrived in 1.12.
 */
export const SING_BOX_MINIMUM = '1.12.0';

/** The tags sing-box's own release archives are built with (its Makefile's TAGS), assumed when a build does not say. */
export const RELEASE_BUILD_TAGS = [
  'with_gvisor',
  'with_quic',
  'with_dhcp',
  'with_wireguard',
  'with_utls',
  'with_acme',
  'with_clash_api',
  'with_tailscale',
  'with_naive_outbound',
] as const;

/** "Tags: with_gvisor,with_quic" in `sing-box version` → the tags; null when the line is missing. */
export function parseBuildTags(versionOutput: string): string[] | null {
  const m = /^\s*Tags:\s*(.*)$/m.exec(versionOutput);
  if (!m) return null;
  return (m[1] ?? '')
    .split(',')
    .map((t) => t.trim())
    .filter(Boolean);
}

/** Which build tag each optional part needs (named in the reasons the UI shows). */
export const TAG_OF = {
  quic: 'with_quic',
  utls: 'with_utls',
  wireguard: 'with_wireguard',
  naive: 'with_naive_outbound',
} as const;

export function singBoxCapabilities(version: string, buildTags: readonly string[] | null): CoreCapabilities {
  const tags = new Set(buildTags ?? RELEASE_BUILD_TAGS);
  if (!atLeast(version, SING_BOX_MINIMUM)) {
    return { protocols: new Set(), networks: new Set(), securities: new Set(), features: new Set(), shadowsocksMethods: new Set() };
  }
  const protocols: Protocol[] = ['vmess', 'vless', 'trojan', 'shadowsocks', 'socks', 'http', 'anytls'];
  const networks: Network[] = ['tcp', 'ws', 'grpc', 'h2', 'httpupgrade'];
  const securities: SecurityType[] = ['none', 'tls'];
  const features: CoreFeature[] = ['vision-flow', 'ss2022', 'tls-allow-insecure', 'ws-early-data-field', 'detour', 'shadowtls', 'ss-plugin-obfs', 'ss-plugin-v2ray'];
  if (tags.has(TAG_OF.quic)) {
    protocols.push('hysteria', 'hysteria2', 'tuic');
    networks.push('quic');
    features.push('hysteria2-salamander', 'hysteria2-port-hopping');
  }
  if (tags.has(TAG_OF.utls)) {
    securities.push('reality');
    features.push('tls-fingerprint');
  }
  // WireGuard is an endpoint since 1.11 (the outbound went in 1.13); Naive came to the outbounds in 1.13.
  if (tags.has(TAG_OF.wireguard)) protocols.push('wireguard');
  if (tags.has(TAG_OF.naive) && atLeast(version, '1.13.0')) protocols.push('naive');
  const methods = [...AEAD_METHODS, ...PLAIN_METHODS, ...XCHACHA_METHODS, ...SS2022_METHODS, ...LEGACY_STREAM_METHODS];
  return capabilitySet(protocols, networks, securities, features, methods);
}
