/**
 * The core adapter: finds the core binary, learns what it can run, and writes its configs.
 *
 *   const found = await locateCore({ settingPath, resourcesDir });      // setting → bundled → PATH
 *   if ('error' in found) …show found.error…
 *   const core = await detectCore(found.path);                          // family, version, capabilities
 *   const why = unsupportedReason(server, core, via);                   // "not supported by v2ray 4.34.0: …" | null
 *   const config = tunnelConfig({ server, via, core, listen: '127.0.0.1', httpPort, socksPort, apiPort });
 *   const file = await writeConfigFile(runtimeDir, 'tunnel', config);   // 0600, atomic
 *   // start: v2ray 4 `v2ray -config FILE`; v2ray 5 `v2ray run -c FILE`; Xray `xray run -c FILE`
 *   //        (coreRunArgs(core, file) gives these)
 *
 * Tags and stats names the tunnel relies on: TUNNEL_TAGS, PROXY_UPLINK_STAT, PROXY_DOWNLINK_STAT;
 * the prober's: probeInboundTag(i), probeOutboundTag(i). Dial failures: see tunnelConfig's doc.
 */
export {
  type CoreCapabilities,
  type CoreProfile,
  type CoreFeature,
  CORE_FEATURES,
  capabilitiesFromTable,
  coreLabel,
} from './capabilities';
export { locateCore, locateCores, isCoreName, type LocateOptions, type LocateResult, type CoreSource, type FoundCore, type CoreBinaryName, CORE_BINARY_NAMES, MAIN_CORE_NAMES } from './locate';
export { detectCore, type DetectOptions } from './detect';
export { unsupportedReason, splitRunnable } from './support';
export { carrierStandIn, chooseCarrier, type CarrierChoice } from './carrier';
export { groupCarrierLabel, groupCarrierTag, groupPickCarrier, groupRouteInCore, onCarriedGroupHop } from './group-carriers';
export { singBoxCarrierConfig, singBoxProberConfig, singBoxProbeAntiDpiTag, CARRIER_TAGS, type SingBoxProberEntry } from './sing-box/config';
export { certificateNotApplied } from './cert-check';
export { carriedAntiDpi, type CarriedAntiDpi, ANTI_DPI_INBOUND_TAG } from './carried-anti-dpi';
export { probeRelays, type ProbeRelayInput } from './probe-anti-dpi';
export { outboundFor, type OutboundOptions } from './outbound';
export {
  tunnelConfig,
  type TunnelConfigOptions,
  type CoreLogLevel,
  TUNNEL_TAGS,
  userInboundTags,
  PROXY_UPLINK_STAT,
  PROXY_DOWNLINK_STAT,
} from './tunnel-config';
export { shareInbounds, isRefusedLogin, SHARE_TAGS, type ShareInbounds } from './share-inbounds';
export { transparentInbounds, markOutbounds, hasTransparentInbounds, TRANSPARENT_TAGS, type TransparentOptions, type CoreCapture, type OutboundMarkOnly, type CaptureMethod } from './transparent';
export { type CoreRouting, type CoreRoute, type RoutingSections, routingSections, coreDomain, DNS_TAG } from './routing-config';
export { proberConfig, type ProberConfigOptions, type ProberEntry, type ProberRelay, probeInboundTag, probeOutboundTag, probeViaTag } from './prober-config';
export { writeConfigFile } from './config-file';
export { coreRunArgs, coreRunEnvironment, configTestArgs, assetLocation } from './run-core';
export { UnsupportedServerError } from './errors';
export { parseCoreVersion, compareVersions } from './version';
export { type GroupRoute, groupDialTag, groupOutboundsOf, groupReceivedStat, groupSentStat, groupTag, groupTags, groupViaTag } from './group-outbounds';
export { ConvertedOutbounds, XrayOutboundSwap } from './group-swap';
