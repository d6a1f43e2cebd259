/**
 * What the monitor needs from the layer below it: the prober (its contract is the tunnel's, in
 * app/tunnel/probe-contract.ts) and a direct check of the network.
 */
export type { DownloadRequest, FetchThroughRequest, FetchThroughResult, ProbeRequest, Readiness, ServerProber } from '../tunnel/probe-contract';

/**
 * A direct request (not through any server) used to tell "every server failed" from "the network
 * itself is down" (spec/observatory.md's connectivity check): when the network is down, a cycle's
 * failures are discarded, not recorded.
 */
export interface DirectCheck {
  /** True when `url` answered (any HTTP status) within `timeoutMs`. Never rejects. */
  reachable(url: string, timeoutMs: number, signal?: AbortSignal): Promise<boolean>;
}
