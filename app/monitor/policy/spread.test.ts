import { describe, expect, it } from 'vitest';
import type { ServerId } from '../../../shared/domain/server';
import { mulberry32 } from '../../testing/random';
import { spreadStarts, spreadWindowMs } from './spread';

const ids = Array.from({ length: 200 }, (_, i) => `s${i}` as ServerId);

describe('spreading a scheduled cycle over its window', () => {
  it('gives every server a moment inside the window, in the cycle order', () => {
    const starts = spreadStarts(ids, 75_000, mulberry32(7));
    const moments = ids.map((id) => starts.get(id)!);
    expect(moments.every((m) => m >= 0 && m < 75_000)).toBe(true);
    expect(moments).toEqual([...moments].sort((a, b) => a - b));
  });

  it('spreads the moments over the whole window, not in one burst', () => {
    const moments = [...spreadStarts(ids, 75_000, mulberry32(7)).values()];
    const quarters = [0, 1, 2, 3].map((q) => moments.filter((m) => Math.floor(m / 18_750) === q).length);
    // 200 draws: each quarter of the window holds about 50 starts, none near all or none.
    for (const count of quarters) expect(count).toBeGreaterThan(30);
    expect(Math.max(...moments) - Math.min(...moments)).toBeGreaterThan(60_000);
  });

  it.each([
    [5 * 60_000, 75_000],
    [60_000, 15_000],
    [0, 0],
  ])('an interval of %d ms spreads over %d ms', (interval, window) => {
    expect(spreadWindowMs(interval)).toBe(window);
  });

  it('a window of 0 starts everything at once', () => {
    expect([...spreadStarts(ids.slice(0, 3), 0, mulberry32(1)).values()]).toEqual([0, 0, 0]);
  });
});
