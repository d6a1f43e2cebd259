import { describe, expect, it } from 'vitest';
import { networkLossBackoffMs } from './constants';
import { activeHold, quietAfter, rateLimitedUntil } from './limits';
import { initialState, NOTHING_PERSISTED } from './state';

describe('network-loss back-off T_k = min(15 · 2^(k−1), 120) s', () => {
  it.each([
    [1, 15_000],
    [2, 30_000],
    [3, 60_000],
    [4, 120_000],
    [5, 120_000],
    [12, 120_000],
  ])('attempt %i → %i ms', (k, ms) => {
    expect(networkLossBackoffMs(k)).toBe(ms);
  });
});

describe('3 switches per 3 minutes', () => {
  it.each([
    { times: [], now: 0, expected: null },
    { times: [10_000, 20_000], now: 30_000, expected: null },
    { times: [10_000, 20_000, 30_000], now: 40_000, expected: 190_000 },
    { times: [10_000, 20_000, 30_000], now: 190_000, expected: null }, // the first left the window
    { times: [0, 10_000, 20_000, 30_000], now: 40_000, expected: 190_000 }, // the 3 most recent count
  ])('switches at $times, now $now → next at $expected', ({ times, now, expected }) => {
    expect(rateLimitedUntil(times, now)).toBe(expected);
  });
});

describe('holds', () => {
  const base = initialState({ stallThresholdMs: 5000, probeTimeoutMs: 5000 }, NOTHING_PERSISTED, 0);

  it('5 s after a switch, 15 s after a check', () => {
    expect(quietAfter(true, 1000)).toEqual({ until: 6000, reason: 'after-switch' });
    expect(quietAfter(false, 1000)).toEqual({ until: 16_000, reason: 'after-check' });
  });

  it('the longest hold is the one that counts; a tie names the network loss', () => {
    expect(activeHold({ ...base, quiet: { until: 15_000, reason: 'after-check' }, networkLoss: { attempt: 1, until: 15_000 } }, 1000)).toEqual({
      until: 15_000,
      reason: 'network-lost',
    });
    expect(activeHold({ ...base, quiet: { until: 15_000, reason: 'after-check' }, rateLimitedUntil: 9000 }, 1000)).toEqual({ until: 15_000, reason: 'after-check' });
    expect(activeHold({ ...base, quiet: { until: 15_000, reason: 'after-check' } }, 15_000)).toBeNull();
  });
});
