/**
 * The bulk speed test: each chosen server downloads N bytes through itself, K servers at a time,
 * only when the user asks. Its result is the server's download speed with the time it was
 * measured; the list sorts by it and the top bar and details show it with its age.
 */
import type { ServerId, SubscriptionId } from './server';

/** 10 MB per server: long enough that the link's rate, not the handshake, decides the figure. */
export const DEFAULT_SPEED_TEST_BYTES = 10 * 1_000_000;
/** Two at a time, so the downloads do not share the bottleneck they measure. */
export const DEFAULT_SPEED_TEST_PARALLEL = 2;
export const MIN_SPEED_TEST_BYTES = 64 * 1024;
export const MAX_SPEED_TEST_BYTES = 1_000_000_000;
export const MAX_SPEED_TEST_PARALLEL = 16;

/** Which servers a run covers. */
export type SpeedTestScope = { kind: 'servers'; serverIds: ServerId[] } | { kind: 'subscription'; subscriptionId: SubscriptionId } | { kind: 'all' };

export interface SpeedTestResult {
  /** When the download ended (epoch ms). */
  at: number;
  /** Body bytes received. */
  bytes: number;
  /** Body speed after the response headers; null when the download failed. */
  bytesPerSecond: number | null;
  /** Why it failed, in words already free of credentials; null when it measured. */
  error: string | null;
  /** Loaded from the previous run's cache. */
  fromCache: boolean;
}

export interface SpeedTestProgress {
  /** A run is under way (cancelling included). */
  running: boolean;
  /** Cancel was asked and downloads are being stopped. */
  cancelling: boolean;
  /** Servers finished in this run (measured or failed). */
  done: number;
  /** Of the finished, those that failed. */
  failed: number;
  total: number;
  /** Downloads at once. */
  parallel: number;
  /** Bytes each server downloads. */
  bytesPerServer: number;
  /** When the run started (epoch ms); null before the first run. */
  startedAt: number | null;
  /** The estimated time left, from the pace so far; null until a server finished. */
  remainingMs: number | null;
  /** How the last run ended: every server done, or cancelled; null while running or before any run. */
  ended: 'finished' | 'cancelled' | null;
}

export const IDLE_SPEED_TEST: SpeedTestProgress = {
  running: false,
  cancelling: false,
  done: 0,
  failed: 0,
  total: 0,
  parallel: DEFAULT_SPEED_TEST_PARALLEL,
  bytesPerServer: DEFAULT_SPEED_TEST_BYTES,
  startedAt: null,
  remainingMs: null,
  ended: null,
};
