import type { IpInfo, Measurement, ProbeError, ServerStatistics } from './measurement';
import type { ServerId } from './server';
import type { SpeedTestResult } from './speed-test';
import type { TransferTest } from './transfer';

/**
 * The reachability verdict of a server (spec/reachability.md), derived fresh every time.
 * `blocked-here`: reached from outside but not from the user's network; `blocked`: the trusted
 * checker cannot reach it, so its address is taken as blocked (seed 004).
 */
export const VERDICTS = ['ok', 'failing', 'down', 'blocked-here', 'blocked', 'unknown'] as const;
export type Verdict = (typeof VERDICTS)[number];

export interface Reachability {
  verdict: Verdict;
  /** A sentence naming the vantage points involved. */
  reason: string;
  /** Server ids used as outside vantage points, with what each saw. */
  vantagePoints: { serverId: ServerId; reached: boolean }[];
  derivedAt: number;
}

/**
 * Whether a server carries IPv6 traffic (spec/monitor.md: verify_ipv6, ipv6_declared).
 * `declared`: the subscription says so, known from the start and never verified. `verified`: the
 * monitor fetched the test URL once more through the server via the host's IPv6 address.
 */
export interface Ipv6Support {
  /** true: IPv6 works through the server; false: the server refuses it; null: unknown (see detail). */
  supported: boolean | null;
  source: 'declared' | 'verified';
  /** What was seen, in words: the declaration, the answer, or why it is not known. */
  detail: string;
  /** When it was verified (epoch ms); null for a declaration. */
  at: number | null;
  /** Verified in the previous run (loaded from the cache) and not verified again in this one. */
  fromCache: boolean;
}

/**
 * What the monitor knows about one server, as the UI and the observation API show it.
 * Everything here is data; wording is the renderer's job.
 */
export interface ServerStatus {
  serverId: ServerId;
  /** Latest URL-test delay; null when the latest test failed or none ran. */
  delayMs: number | null;
  /** When the latest result was measured (epoch ms). */
  testedAt: number | null;
  /** The latest result was loaded from the cache of the previous run and not retested yet. */
  fromCache: boolean;
  /** The latest test failed; kept until a test gets an answer. */
  error: ProbeError | null;
  /** A staged on-demand test is under way. */
  testing: boolean;
  /** A staged test shows "down for now" (stage 1 passed without an answer); never seen by Auto. */
  downForNow: boolean;
  /** Why the server is not tested yet (chain without result, core cannot run it). */
  notReady: string | null;
  ipInfo: (IpInfo & { fromCache: boolean; at: number }) | null;
  /** Download speed measured on request, bytes per second. */
  throughputBps: number | null;
  /** What that download fetched and when (absent or null: not known, e.g. a cache from before it was kept). */
  throughputTest?: ThroughputTestSeen | null;
  statistics: ServerStatistics;
  /** The last 5 measurements, of any method, oldest first. */
  recent: Measurement[];
  reachability: Reachability | null;
  /** IPv6 through the server: declared by the subscription or verified; null when nothing is known. */
  ipv6: Ipv6Support | null;
  /** The latest transfer test (a download after a delay test answered); null when none ran. */
  transfer: TransferTest | null;
  /** The latest bulk speed test (N MB through the server on request); null when none ran. */
  speedTest: SpeedTestResult | null;
}

/** A status without its statistics and last measurements (what a row of the list shows). */
export type LatestStatus = Omit<ServerStatus, 'statistics' | 'recent'>;

/**
 * A server as the observatory API reports it (spec/observatory.md, Xray's OutboundStatus), beside
 * the status in every server of the observation export.
 */
export interface ObservatoryStatus {
  alive: boolean;
  /** ms; 99,999,999 when the latest test failed or none ran (infinite for sorting). */
  delay: number;
  /** Why the latest test failed; empty when it answered. */
  lastErrorReason: string;
  /** When it last answered, Unix seconds; null when never. */
  lastSeenTime: number | null;
  /** When it was last tested, Unix seconds; null when never. */
  lastTryTime: number | null;
}

/** The on-request download behind a server's measured speed. */
export interface ThroughputTestSeen {
  /** Body bytes it fetched. */
  bytes: number;
  /** When it ended (epoch ms). */
  at: number;
}
