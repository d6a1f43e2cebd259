import { describe, expect, it } from 'vitest';
import { type CycleCandidate, cycleOrder } from './cycle-order';
import { hungGuardMs, isDue } from './timing';

const MIN = 60_000;
const now = 100 * MIN;
const c = (id: string, lastDelayMs: number | null | undefined, ageMs: number | null, marked = false): CycleCandidate => ({
  id,
  lastDelayMs,
  testedAt: ageMs === null ? null : now - ageMs,
  marked,
});

describe('cycle order (spec/monitor.md "When tests run")', () => {
  it('tests the fastest first by last result, then untested, then failed; ties keep subscription order', () => {
    const order = cycleOrder(
      [c('failed', null, 10 * MIN), c('slow', 300, 10 * MIN), c('new1', undefined, null), c('fast', 20, 10 * MIN), c('new2', undefined, null), c('mid', 80, 10 * MIN), c('mid2', 80, 10 * MIN)],
      now,
      5 * MIN,
    );
    expect(order).toEqual(['fast', 'mid', 'mid2', 'slow', 'new1', 'new2', 'failed']);
  });

  it('takes only results older than the interval, or marked ones', () => {
    const order = cycleOrder([c('fresh', 50, 1 * MIN), c('stale', 60, 6 * MIN), c('fresh-marked', 70, 1 * MIN, true)], now, 5 * MIN);
    expect(order).toEqual(['stale', 'fresh-marked']);
  });

  it('treats a result exactly one interval old as due, and stretches "older" by the previous cycle length', () => {
    expect(isDue(now - 5 * MIN, now, 5 * MIN)).toBe(true);
    expect(isDue(now - 5 * MIN + 1, now, 5 * MIN)).toBe(false);
    // Tested 20 s into the previous 30 s cycle: still due for the next one.
    expect(isDue(now - 5 * MIN + 20_000, now, 5 * MIN, 30_000)).toBe(true);
    // The slack never exceeds half an interval.
    expect(isDue(now - 2 * MIN, now, 5 * MIN, 10 * MIN)).toBe(false);
  });

  it('fastest-first uses cached results too (the first cycle confirms last run\'s fastest)', () => {
    expect(cycleOrder([c('b', 90, 2 * 3600_000), c('a', 40, 2 * 3600_000)], now, 5 * MIN)).toEqual(['a', 'b']);
  });
});

describe('hung-test guard', () => {
  it('is 3 × the test timeout + 2 s (17 s for 5 s)', () => {
    expect(hungGuardMs(5000)).toBe(17_000);
    expect(hungGuardMs(1000)).toBe(5000);
  });
});
