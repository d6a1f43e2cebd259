/**
 * When to restart a core that died. Quick at first (a crash is usually a one-off and the user's
 * traffic is waiting: the first restart comes after 0.2 s so traffic flows again well within
 * 2 s), then slower so a core that keeps crashing does not spin; a core that has run for a
 * minute is considered stable again and the schedule starts over.
 */
export const RESTART_DELAYS_MS: readonly number[] = [200, 500, 1000, 2000, 5000, 10_000, 30_000];
export const STABLE_RUN_MS = 60_000;

export interface RestartHistory {
  /** Consecutive unstable exits so far. */
  failures: number;
  /** When the core last started running (epoch ms), null before the first start. */
  runningSince: number | null;
}

export const FRESH_HISTORY: RestartHistory = { failures: 0, runningSince: null };

/** Records a successful start. */
export function coreStarted(history: RestartHistory, now: number): RestartHistory {
  return { ...history, runningSince: now };
}

/**
 * The core exited (or failed to start) at `now`: how long to wait before the next start, and the
 * history to keep. A run of at least `stableRunMs` forgives earlier failures.
 */
export function restartAfterExit(
  history: RestartHistory,
  now: number,
  delays: readonly number[] = RESTART_DELAYS_MS,
  stableRunMs = STABLE_RUN_MS,
): { delayMs: number; attempt: number; history: RestartHistory } {
  const stable = history.runningSince !== null && now - history.runningSince >= stableRunMs;
  const failures = stable ? 0 : history.failures;
  const delayMs = delays[Math.min(failures, delays.length - 1)] ?? 0;
  return { delayMs, attempt: failures + 1, history: { failures: failures + 1, runningSince: null } };
}
