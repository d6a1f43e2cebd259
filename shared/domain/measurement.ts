import type { ServerId } from './server';

/** How a delay was measured: an HTTP(S) GET through the server, a direct TCP connect, or ICMP. */
export const PROBE_METHODS = ['url', 'tcp', 'icmp'] as const;
export type ProbeMethod = (typeof PROBE_METHODS)[number];

/**
 * Why a probe got no answer, classified so the UI can say it in words and Auto can tell a dial
 * failure from a stall.
 */
export const PROBE_FAILURES = [
  'timeout',
  'refused',
  'reset',
  'tls',
  'dns',
  'handshake',
  'http-status',
  'network',
  'unsupported',
  'unknown',
] as const;
export type ProbeFailure = (typeof PROBE_FAILURES)[number];

export interface ProbeError {
  kind: ProbeFailure;
  /** Human detail, already free of credentials. */
  message: string;
}

/** The outcome of one probe. */
export type ProbeOutcome = { ok: true; delayMs: number } | { ok: false; error: ProbeError };

/** One stored measurement of a server. `delayMs: null` is a probe without an answer. */
export interface Measurement {
  /** Epoch milliseconds. */
  at: number;
  method: ProbeMethod;
  delayMs: number | null;
  error?: ProbeFailure;
}

/** A test straight to a server's own address, not through any proxy, made when the user asks. */
export type DirectMethod = 'tcp' | 'icmp';

/**
 * What a TCP or ICMP test on request found: the measurement it recorded (a `null` delay is no
 * answer), or why it could not run at all (no `ping` on the machine, or not permitted to send
 * ICMP), which is not a failure of the server.
 */
export type DirectTestOutcome =
  | { method: DirectMethod; available: true; measurement: Measurement }
  | { method: DirectMethod; available: false; reason: string };

/** The observatory's statistics of a server over its stored measurements (see spec/observatory.md). */
export interface ServerStatistics {
  count: number;
  failures: number;
  averageMs: number | null;
  /** Standard deviation; with a single answered sample it is estimated as average / 2. */
  deviationMs: number | null;
  minMs: number | null;
  maxMs: number | null;
}

/** Exit address and place of a server, as an IP-info service saw it through the server. */
export interface IpInfo {
  ip: string;
  countryCode?: string;
  country?: string;
  region?: string;
  city?: string;
  asn?: string;
  org?: string;
  /** Which service answered (e.g. "ipapi.co", "cloudflare-trace"). */
  source: string;
}

export interface MeasurementsByServer {
  [serverId: ServerId]: Measurement[];
}
