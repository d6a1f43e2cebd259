/**
 * The monitor's fixed numbers (spec/monitor.md), in one place so tests and the runtime agree.
 */

/** A not-ready server (still connecting, or its chain has no result yet) is retried this much later. */
export const NOT_READY_RETRY_MS = 3000;
/** After this many not-ready skips the server is tested anyway. */
export const NOT_READY_MAX_TRIES = 10;
/** All servers are retested this long after the last network change. */
export const NETWORK_SETTLE_MS = 2000;
/** A group's fresh selection measured this recently is not retested. */
export const FRESH_SELECTION_MS = 15_000;
/** How many measurements (of any method) a server keeps for Auto's score (seed 001: the last 5). */
export const RECENT_KEPT = 5;
/** How many URL results a server keeps for the ping-history chart. */
export const HISTORY_LENGTH = 200;

/**
 * How long a test may go without returning before it counts as failed and its worker moves on:
 * 3 × the test's timeout + 2 s (a dial that ignores its deadline must not hold a worker forever).
 */
export function hungGuardMs(testTimeoutMs: number): number {
  return 3 * testTimeoutMs + 2000;
}

/**
 * Whether a result measured at `testedAt` is due for a cycle at `now`: older than `interval`.
 * `slackMs` widens "older" by the length of the previous cycle, so a server tested near the end
 * of cycle k is still due in cycle k+1 (otherwise every other cycle would skip it).
 */
export function isDue(testedAt: number | null, now: number, intervalMs: number, slackMs = 0): boolean {
  if (testedAt === null) return true;
  return now - testedAt >= intervalMs - Math.max(0, Math.min(slackMs, intervalMs / 2));
}
