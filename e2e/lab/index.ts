/**
 * The lab: a real little internet on loopback (../../../shared/spec/lab.md). Real v2ray servers
 * behind fault relays, a target with IP-info stand-ins, a subscription server and a control API.
 *
 *   const lab = await startLab({ servers: 12 });          // in-process
 *   const lab = await spawnLab(['--servers', '12']);     // `npm run lab` as a child process
 *   await lab.setFault('A1', { fault: 'blackhole' });
 *   await lab.stop();
 */
export { startLab, type InProcessLab } from './lab';
export { spawnLab } from './spawn';
export type {
  FaultMode,
  FaultSettings,
  IpInfoMode,
  IpInfoService,
  Lab,
  LabCounters,
  LabInfo,
  LabOptions,
  LabProtocol,
  LabServerInfo,
  LabServerProtocol,
  ModernKind,
  LabState,
  ServerCounters,
  ServerState,
  SubscriptionChange,
  SubscriptionMode,
} from './types';
export { type ClientRoute, type FetchResult, fetchVia, startClient } from './client';
export { buildWorld, type ServerSpec, type World } from './world';
export { type ModernClient, startModernClient } from './modern-client';
export { MODERN_KINDS, MODERN_SUBSCRIPTION, type ModernServerSpec, buildModernServers, urlThrough } from './modern-world';
export { labRouting } from './routing';
