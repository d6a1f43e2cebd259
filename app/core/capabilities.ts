import type { CoreInfo } from '../../shared/domain/connection';
import type { Protocol } from '../../shared/domain/server';
import type { Network, SecurityType } from '../../shared/domain/server';
import {
  AEAD_METHODS,
  capabilitySet,
  type CoreCapabilities,
  type CoreFeature,
  PLAIN_METHODS,
  SS2022_METHODS,
  XCHACHA_METHODS,
} from './capability-sets';
import { singBoxCapabilities } from './sing-box/capabilities';
import { atLeast, type CoreFamily } from './version';

export {
  AEAD_METHODS,
  CORE_FEATURES,
  type CoreCapabilities,
  type CoreFeature,
  LEGACY_STREAM_METHODS,
  PLAIN_METHODS,
  SS2022_METHODS,
  XCHACHA_METHODS,
} from './capability-sets';

export interface CoreProfile extends CoreInfo {
  capabilities: CoreCapabilities;
  /**
   * Which capabilities were confirmed by the binary itself (each one a tiny config passed to its
   * config test) as opposed to taken from the table. Items absent from both sets were not checked.
   */
  verified: { confirmed: string[]; refuted: string[] };
  /** sing-box: the build tags `sing-box version` printed (absent: not printed, or another family). */
  buildTags?: string[];
}

/**
 * What each family/version can run, from the cores' release history. The table is the claim;
 * `detectCore` then asks the binary about everything its config test can refute (protocols,
 * transports, shadowsocks methods) and corrects the table where the binary disagrees. Fields a
 * core silently ignores (vision flow, fingerprint, REALITY under v2ray 4) cannot be checked that
 * way and come from the table alone.
 */
export function capabilitiesFromTable(family: CoreFamily, version: string, buildTags: readonly string[] | null = null): CoreCapabilities {
  switch (family) {
    case 'v2ray':
      return atLeast(version, '5.0.0') ? v2ray5(version) : v2ray4(version);
    case 'xray':
      return xray(version);
    case 'sing-box':
      return singBoxCapabilities(version, buildTags);
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
  return capabilitySet(protocols, networks, ['none', 'tls'], features, [...AEAD_METHODS, ...PLAIN_METHODS]);
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
  return capabilitySet(['vmess', 'vless', 'trojan', 'shadowsocks', 'socks', 'http'], networks, ['none', 'tls'], features, [
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
  const networks: Network[] = ['tcp', 'ws', 'grpc', 'kcp'];
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
  // Xray 26 moved mKCP's header and seed into FinalMask; the binary check has the last word.
  if (atLeast(version, '26.0.0')) features.push('kcp-finalmask');
  // SplitHTTP (1.8.16) was renamed XHTTP in the 24.11 releases.
  if (atLeast(version, '1.8.16') && !atLeast(version, '24.11.0')) features.push('splithttp-name');
  const methods: string[] = [...AEAD_METHODS, ...PLAIN_METHODS, ...XCHACHA_METHODS];
  if (atLeast(version, '1.6.0')) {
    features.push('ss2022');
    methods.push(...SS2022_METHODS);
  }
  return capabilitySet(protocols, networks, securities, features, methods);
}

/**
 * Limits the config test cannot see, because the core accepts the config and then behaves
 * differently: applied after the binary's checks so a passing check does not re-enable them.
 */
export function applySemanticLimits(family: CoreFamily, version: string, caps: CoreCapabilities): void {
  // Xray 26 takes a kcpSettings without header or seed and then sends mKCP packets without the
  // obfuscation every server expects: without FinalMask it cannot match any server.
  if (family === 'xray' && atLeast(version, '26.0.0') && !caps.features.has('kcp-finalmask')) caps.networks.delete('kcp');
}


/** "v2ray 4.34.0", "Xray 1.8.24", "sing-box 1.10.1": how the core is named to users. */
export function coreLabel(core: Pick<CoreInfo, 'family' | 'version'>): string {
  const name = core.family === 'xray' ? 'Xray' : core.family;
  return `${name} ${core.version}`;
}
