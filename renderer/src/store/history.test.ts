import { describe, expect, it } from 'vitest';
import { chartData, timeAxis } from './history';

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

describe('the ping chart’s time axis', () => {
  const MIN = 60_000;
  const T = Date.UTC(2026, 0, 5, 15, 36, 4);
  const labels = (ticks: number[]) => ticks.map((t) => new Date(t).toISOString().slice(11, 19));

  it('ticks a short history by the second, so no two ticks read the same minute', () => {
    const axis = timeAxis([{ at: T }, { at: T + 20_000 }, { at: T + 41_000 }]);
    expect(axis.label).toBe('seconds');
    expect(labels(axis.ticks)).toEqual(['15:36:10', '15:36:20', '15:36:30', '15:36:40']);
    expect(axis.domain[0]).toBeLessThan(T);
    expect(axis.domain[1]).toBeGreaterThan(T + 41_000);
  });

  it('ticks an hour by round minutes, and a day or more with the date', () => {
    const hour = timeAxis([{ at: T }, { at: T + 60 * MIN }]);
    expect(hour.label).toBe('minutes');
    expect(labels(hour.ticks)).toEqual(['15:40:00', '15:50:00', '16:00:00', '16:10:00', '16:20:00', '16:30:00']);
    expect(new Set(hour.ticks).size).toBe(hour.ticks.length);
    expect(timeAxis([{ at: T }, { at: T + 30 * 60 * MIN }]).label).toBe('date-time');
  });

  it('puts hourly ticks on the hour of the user’s clock (Tehran is UTC+3:30)', () => {
    const tehran = 210 * MIN;
    const axis = timeAxis([{ at: T }, { at: T + 5 * 60 * MIN }], 6, tehran);
    expect(labels(axis.ticks)).toEqual(['16:30:00', '17:30:00', '18:30:00', '19:30:00', '20:30:00']);
  });

  it('centres a single measurement', () => {
    expect(timeAxis([{ at: T }])).toEqual({ domain: [T - 30_000, T + 30_000], ticks: [T], label: 'seconds' });
  });
});
