/**
 * What the monitor needs from the layer below it. The tunnel's prober implements these against
 * real cores; tests implement them on a fake clock.
 */
import type { ProbeError, ProbeOutcome } from '../../shared/domain/measurement';
import type { Server, ServerId } from '../../shared/domain/server';
import type { TransferCourse } from './policy/transfer';

export interface ProbeRequest {
  url: string;
  /** The probe's own hard deadline; the outcome is `timeout` when it passes. */
  timeoutMs: number;
  /** Only this HTTP status counts as an answer (by default shared/domain/test-url.ts decides). */
  expectStatus?: number;
  signal?: AbortSignal;
}

export interface FetchThroughRequest {
  url: string;
  timeoutMs: number;
  /** Stop reading after this many bytes (the response is still measured). */
  maxBytes?: number;
  /**
   * The Host header (and, for https, the TLS server name) when the URL names an address instead
   * of the host: the IPv6 check fetches `http(s)://[v6]:port/path` as the test URL's own host.
   */
  hostHeader?: string;
  signal?: AbortSignal;
}

export type FetchThroughResult =
  | { ok: true; status: number; body: Buffer; headersMs: number; elapsedMs: number }
  | { ok: false; error: ProbeError; elapsedMs: number };

/** A download that watches its own course (the transfer test). */
export interface DownloadRequest {
  url: string;
  /** Body bytes to read. */
  maxBytes: number;
  /** The response must start within this long, else the course is `silent`. */
  headersTimeoutMs: number;
  /** Nothing for this long after the headers or the last byte: `stalled`. */
  stallMs: number;
  /** The whole download's deadline: a body still coming then is `deadline`. */
  deadlineMs: number;
  signal?: AbortSignal;
}

export type Readiness = { ready: true } | { ready: false; reason: string };

export interface ServerProber {
  /** A URL test through the server: fresh connection, no redirects. Never rejects. */
  probe(serverId: ServerId, request: ProbeRequest): Promise<ProbeOutcome>;
  /** A GET through the server returning the body (IP-info lookups, throughput). Never rejects. */
  fetchThrough(serverId: ServerId, request: FetchThroughRequest): Promise<FetchThroughResult>;
  /** A download through the server, with how it went (the transfer test). Never rejects. */
  download(serverId: ServerId, request: DownloadRequest): Promise<TransferCourse>;
  /** Connect time to the server's own address, not through any proxy. Never rejects. */
  tcpPing(server: Server, timeoutMs: number, signal?: AbortSignal): Promise<ProbeOutcome>;
  /** Whether the server can be probed now (its prober inbound is up), else why not. */
  readiness(serverId: ServerId): Readiness;
}

/**
 * A direct request (not through any server) used to tell "every server failed" from "the network
 * itself is down" (spec/observatory.md's connectivity check): when the network is down, a cycle's
 * failures are discarded, not recorded.
 */
export interface DirectCheck {
  /** True when `url` answered (any HTTP status) within `timeoutMs`. Never rejects. */
  reachable(url: string, timeoutMs: number, signal?: AbortSignal): Promise<boolean>;
}
