/**
 * How long the browser client waits before reconnecting to the headless host: doubling from
 * 500 ms to a 10 s ceiling, with jitter so several tabs do not knock in step. `random` comes in so
 * the schedule is testable.
 */
export function reconnectDelayMs(attempt: number, random: () => number = Math.random): number {
  const base = Math.min(500 * 2 ** Math.max(0, attempt - 1), 10_000);
  return Math.round(base * (0.75 + random() * 0.5));
}
