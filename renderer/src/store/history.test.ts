import { describe, expect, it } from 'vitest';
import { chartData } from './history';

describe('the ping chart’s data', () => {
  it('orders by time, leaves a gap for a failure and puts its mark on the ceiling', () => {
    const { points, ceiling } = chartData([
      { at: 3, method: 'url', delayMs: 80 },
      { at: 1, method: 'url', delayMs: 60 },
      { at: 2, method: 'url', delayMs: null, error: 'timeout' },
    ]);
    expect(ceiling).toBe(100);
    expect(points).toEqual([
      { at: 1, delay: 60, failed: null, method: 'url' },
      { at: 2, delay: null, failed: 100, method: 'url', error: 'timeout' },
      { at: 3, delay: 80, failed: null, method: 'url' },
    ]);
  });

  it('raises the ceiling above the slowest answer, to a round step', () => {
    expect(chartData([{ at: 1, method: 'url', delayMs: 2549 }]).ceiling).toBe(2950);
  });

  it('is empty without measurements', () => {
    expect(chartData([])).toEqual({ points: [], ceiling: 100 });
  });
});
