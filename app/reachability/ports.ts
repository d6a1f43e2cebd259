/**
 * What the reachability runtime needs from the rest of the engine. The monitor implements the
 * first two as it is (`Monitor.subscribe/status` and `Monitor.probe`); the chained prober
 * (./chained-prober.ts) implements the third against a real core.
 */
import type { Server, ServerId } from '../../shared/domain/server';
import type { ServerStatus } from '../../shared/domain/status';

/** The monitor's results: URL tests from here, exit IP info of every server. */
export interface MonitorResultsPort {
  /** Called with the statuses that changed (the monitor debounces bursts). Returns unsubscribe. */
  subscribe(listener: (statuses: ServerStatus[]) => void): () => void;
  /** What reachability reads of a server now: its last measurements (URL results with times) and IP info. */
  observed(serverId: ServerId): Pick<ServerStatus, 'recent' | 'ipInfo'>;
  /** Whether background testing runs now. While it does not (idle, stopped) no probe is spent. */
  isActive(): boolean;
}

/**
 * One URL test of a server from the user's network, not recorded by the monitor (a test in
 * flight is joined). `Monitor.probe` is exactly this. Never rejects.
 */
export interface HereProbePort {
  probe(serverId: ServerId, timeoutMs: number): Promise<{ delayMs: number | null; at: number }>;
}

export interface VantageProbeResult {
  /** The target completed its protocol handshake through the vantage point and the test URL answered. */
  reached: boolean;
  /** Why not, in words free of credentials. */
  error?: string;
  /**
   * The probe says nothing about the target: the vantage point itself did not answer from here
   * at that moment, or the probe could not be made. Such a result is not a vote.
   */
  inconclusive?: boolean;
  /** Time to the test URL's answer through the chain, when reached. */
  delayMs?: number;
}

/** Reaches a target server *through* a vantage server: a chained dial, the outside view. */
export interface VantageProber {
  /** Why this core cannot dial `target` through `vantage` (e.g. v2ray 4.34 chains plain TCP only), or null. */
  unsupported(vantage: Server, target: Server): string | null;
  /** Never rejects; resolves within about `timeoutMs`. */
  reachThrough(vantage: Server, target: Server, timeoutMs: number): Promise<VantageProbeResult>;
}
