import { describe, expect, it } from 'vitest';
import type { Measurement } from '../../../shared/domain/measurement';
import { computeStatistics } from './statistics';

const m = (at: number, delayMs: number | null): Measurement => ({ at, method: 'url', delayMs });

describe('observatory statistics', () => {
  it('counts all and failures, and gives average, population deviation, min and max of answers', () => {
    const stats = computeStatistics([m(1, 100), m(2, 200), m(3, null), m(4, 300)]);
    expect(stats).toEqual({ count: 4, failures: 1, averageMs: 200, deviationMs: 81.6, minMs: 100, maxMs: 300 });
  });

  it('estimates the deviation of a single answer as average / 2', () => {
    expect(computeStatistics([m(1, 60), m(2, null)])).toMatchObject({ count: 2, failures: 1, averageMs: 60, deviationMs: 30, minMs: 60, maxMs: 60 });
  });

  it('has no average when nothing answered, and ignores measurements before the window', () => {
    expect(computeStatistics([m(1, null), m(2, null)])).toEqual({ count: 2, failures: 2, averageMs: null, deviationMs: null, minMs: null, maxMs: null });
    expect(computeStatistics([m(1, 500), m(10, 100), m(11, 100)], 5)).toMatchObject({ count: 2, averageMs: 100, deviationMs: 0 });
  });
});
