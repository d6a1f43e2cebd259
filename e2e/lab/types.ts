/** The lab's programmatic API types (re-exported by index.ts). */
import type { IpInfoService } from '../../shared/settings';
import type { FaultMode } from './relay-policy';
import type { SubscriptionMode } from './subscription-server';
import type { IpInfoMode } from './target';
import type { ModernCore, ModernKind, ModernProtocol } from './modern-world';
import type { LabProtocol } from './world';

export type { FaultMode, IpInfoMode, IpInfoService, LabProtocol, ModernKind, SubscriptionMode };

/** Any lab server's protocol: the v2ray world's four, and the modern block's. */
export type LabServerProtocol = LabProtocol | ModernProtocol;

export interface LabOptions {
  /** Default 12. */
  servers?: number;
  /** Default 3. */
  subscriptions?: number;
  /** Default 1. */
  seed?: number;
  /** Default [20, 300] ms: each server's latency is drawn (seeded) from this range. */
  latency?: [number, number];
  /** Default `v2ray` on PATH. */
  v2rayPath?: string;
  /**
   * Also start the modern block (modern-world.ts): servers hosted by real Xray and sing-box
   * processes, listed by their own subscription `RC`. Off by default: the v2ray world stays
   * exactly as it is, and a machine without those cores still runs the lab.
   */
  modern?: boolean;
  /** Default: the bundled core (resources/core), then PATH. */
  xrayPath?: string;
  singBoxPath?: string;
}

export interface LabServerInfo {
  /** "A1" = subscription A, server 1. */
  id: string;
  subscription: string;
  protocol: LabServerProtocol;
  /** The modern block's kind ("vless-reality-vision", …); absent for the v2ray world. */
  kind?: ModernKind;
  /** Which server core hosts it. */
  hostedBy: 'v2ray' | ModernCore;
  /** "127.0.x.y:PORT": what the client dials (the fault relay). */
  relay: string;
  /** The relay's front ports, when it listens on a hopping range (a UDP server's). */
  relayPorts?: number[];
  /** Whether the relay carries UDP (QUIC-based protocols, WireGuard) rather than TCP. */
  carrier: 'tcp' | 'udp';
  exitIp: string;
  country: string;
  latencyMs: number;
  /**
   * Whether the server carries IPv6 (its IPv6 traffic leaves from ::1); the others refuse IPv6.
   * Share links do not declare it: the monitor's IPv6 check finds it out.
   */
  ipv6: boolean;
  shareLink: string;
}

export interface LabInfo {
  control: string;
  subscriptions: { id: string; url: string }[];
  /** .../generate_204 */
  target: string;
  /** The same target on IPv6 loopback, http://[::1]:P/generate_204 (same port); null where ::1 cannot be bound. */
  targetIpv6: string | null;
  /**
   * The target by host name, http://localhost:P/generate_204: `localhost` resolves to 127.0.0.1,
   * and to ::1 too where /etc/hosts says so (Debian's default; not every machine's).
   */
  targetByName: string;
  /**
   * The lab's own domain ("lab.test"): every name under it leads to the target's address, resolved
   * by the lab's servers with the lab's resolver, so a name sent unresolved through a server works
   * without any real DNS. The user's machine cannot resolve these names.
   */
  zone: string;
  /**
   * The lab's resolver ("127.0.0.1:PORT", UDP): answers every name under `zone` with the target's
   * address. Point the app's `dns` settings here in the lab, so no query leaves for a real resolver.
   */
  resolver: string;
  /** The ipapi.co-like stand-in. */
  ipinfo: string;
  /** Every IP-info service's stand-in URL. */
  ipinfoUrls: Record<IpInfoService, string>;
  /** http://127.0.0.1:P/download, takes ?bytes=N. */
  download: string;
  /** http://127.0.0.1:P/bytes: append "/N" for N incompressible bytes. */
  bytes: string;
  servers: LabServerInfo[];
  /** Present when the modern block was asked for: its subscription and what it left out (a missing core). */
  modern?: { subscription: string; leftOut: { id: string; kind: string; reason: string }[] };
}

export interface FaultSettings {
  fault?: FaultMode;
  latencyMs?: number;
  jitterMs?: number;
  periodMs?: number;
  bandwidthKbps?: number;
  /** `freeze`: bytes each way before a connection goes silent (default 16 KB). */
  afterBytes?: number;
  /** `throttle`: the cap in bytes per second (default 12 KB/s). */
  bytesPerSecond?: number;
}

export type SubscriptionChange = { servers: string[] } | { mode: SubscriptionMode };

export interface ServerCounters {
  /** Connections the relay accepted (including ones it then reset or swallowed). */
  connections: number;
  /** Open right now. */
  active: number;
  /** Bytes received from clients. */
  bytesUp: number;
  /** Bytes delivered to clients. */
  bytesDown: number;
  /** A UDP server on a hopping port range: datagrams received on each of its front ports. */
  datagramsByPort?: Record<number, number>;
}

export interface LabCounters {
  servers: Record<string, ServerCounters>;
  ipinfo: Record<IpInfoService, number>;
  target: { connections: number; generate204: number; downloads: number; downloadBytes: number };
  subscriptions: Record<string, number>;
}

export interface ServerState {
  id: string;
  subscription: string;
  protocol: LabServerProtocol;
  name: string;
  relay: string;
  exitIp: string;
  country: string;
  fault: FaultMode;
  latencyMs: number;
  jitterMs: number;
  periodMs: number;
  bandwidthKbps: number;
  afterBytes: number;
  bytesPerSecond: number;
}

export interface LabState {
  network: 'online' | 'offline';
  servers: ServerState[];
  subscriptions: { id: string; title: string; mode: SubscriptionMode; servers: string[] }[];
  ipinfo: Record<IpInfoService, IpInfoMode>;
}

export interface Lab {
  info: LabInfo;
  setFault(id: string, f: FaultSettings): Promise<void>;
  setNetwork(state: 'online' | 'offline'): Promise<void>;
  setSubscription(id: string, change: SubscriptionChange): Promise<void>;
  setIpInfo(service: IpInfoService, mode: IpInfoMode): Promise<void>;
  counters(): Promise<LabCounters>;
  state(): Promise<unknown>;
  stop(): Promise<void>;
}
