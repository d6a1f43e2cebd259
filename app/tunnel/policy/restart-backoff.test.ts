import { describe, expect, it } from 'vitest';
import { coreStarted, FRESH_HISTORY, restartAfterExit, type RestartHistory, RESTART_DELAYS_MS, STABLE_RUN_MS } from './restart-backoff';

/** Drives a core that starts at once and dies after `runMs`, `times` times; returns the waits. */
function crashLoop(runMs: number, times: number): number[] {
  let history: RestartHistory = FRESH_HISTORY;
  let now = 0;
  const waits: number[] = [];
  for (let i = 0; i < times; i++) {
    history = coreStarted(history, now);
    now += runMs;
    const next = restartAfterExit(history, now);
    waits.push(next.delayMs);
    history = next.history;
    now += next.delayMs;
  }
  return waits;
}

describe('restart back-off', () => {
  it('restarts quickly first, then slower, capped', () => {
    expect(crashLoop(100, 9)).toEqual([200, 500, 1000, 2000, 5000, 10_000, 30_000, 30_000, 30_000]);
  });

  it('the first restart leaves time for traffic to flow again within 2 s', () => {
    expect(RESTART_DELAYS_MS[0]).toBeLessThanOrEqual(500);
  });

  it('a core that ran for a stable minute starts the schedule over', () => {
    expect(crashLoop(STABLE_RUN_MS, 4)).toEqual([200, 200, 200, 200]);
    expect(crashLoop(STABLE_RUN_MS - 1, 3)).toEqual([200, 500, 1000]);
  });

  it('failed starts (never running) keep climbing', () => {
    let history = FRESH_HISTORY;
    const waits: number[] = [];
    for (let i = 0; i < 4; i++) {
      const next = restartAfterExit(history, i * 1000);
      waits.push(next.delayMs);
      expect(next.attempt).toBe(i + 1);
      history = next.history;
    }
    expect(waits).toEqual([200, 500, 1000, 2000]);
  });
});
