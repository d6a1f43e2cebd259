/**
 * The tunnel layer's public face for the services above it: core processes with their stats
 * (TunnelController), probers (CoreProber, ProberGeneration) and requests through a local proxy.
 */
export { TunnelController } from './controller';
export { CoreProber } from './prober';
export { CarrierProber } from './carrier-prober';
export { type ProberEntryInput, ProberGeneration } from './prober-generation';
export { type ProxiedResult, requestThroughProxy } from './proxy-request';
export type { OutboundFailureKind } from './core-log';
export { freePort, freePorts } from './ports';
export type { DownloadRequest, FetchThroughRequest, FetchThroughResult, ProbeRequest, Readiness, ServerProber, TransferCourse } from './probe-contract';
