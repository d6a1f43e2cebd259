/**
 * What a prober offers the services above it (the monitor's probes, IP lookups and transfer
 * tests): the tunnel's CoreProber implements it against real cores, tests on a fake clock.
 * Declared here, beside its implementation, so the tunnel never imports the monitor.
 */
import type { ProbeError, ProbeOutcome } from '../../shared/domain/measurement';
import type { Server, ServerId } from '../../shared/domain/server';

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

/** How a download through a server went, as the prober saw it. */
export type TransferCourse =
  | {
      kind: 'complete' | 'stalled' | 'deadline';
      status: number;
      /** Body bytes received. */
      bytes: number;
      /** From the request to the response headers. */
      headersMs: number;
      /** From the response headers to the last body byte (0 when none came). */
      bodyMs: number;
    }
  /** No response headers: within the URL test's timeout (`silent`), or an error. */
  | { kind: 'silent' }
  /** `bytes`: body bytes that came before it failed (a cancel cuts a download short; they were spent). */
  | { kind: 'error'; error: ProbeError; bytes?: number };
