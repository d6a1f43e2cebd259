import { describe, expect, it } from 'vitest';
import { counterDelta, trafficDelta } from './traffic-delta';

describe('stats diffing', () => {
  it.each([
    ['first reading counts everything since the core started', null, 1500, 1500],
    ['growth is the difference', 1500, 4000, 2500],
    ['no traffic is zero', 4000, 4000, 0],
    ['a counter that went down means the core restarted', 4000, 300, 300],
  ])('%s', (_name, previous, current, delta) => {
    expect(counterDelta(previous, current)).toBe(delta);
  });

  it('diffs up and down independently', () => {
    expect(trafficDelta({ up: 10, down: 100 }, { up: 15, down: 5 })).toEqual({ up: 5, down: 5 });
  });

  it('the deltas of a series add up to the final counter, even across a restart', () => {
    const readings = [0, 100, 250, 250, 900, 40, 80, 1000];
    let previous: number | null = null;
    let sum = 0;
    for (const r of readings) {
      sum += counterDelta(previous, r);
      previous = r;
    }
    expect(sum).toBe(900 + 1000);
  });
});
