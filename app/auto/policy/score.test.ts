import { describe, expect, it } from 'vitest';
import type { Measurement } from '../../../shared/domain/measurement';
import { delays, NOW } from '../testing/measurements';
import { countedMeasurements, score, switchScore, upperMedian } from './score';

const H = 3600_000;

describe('score S (spec/auto.md "Score")', () => {
  it.each([
    // The worked example: Auto picks Finland.
    { server: 'Finland', values: [60, 61, 62], expected: 63 },
    { server: 'Germany', values: [20, 25, 300], expected: 305 },
    { server: 'Netherlands', values: [15, 18, null], expected: 1021 },
  ])('worked example: $server scores $expected', ({ values, expected }) => {
    expect(score(delays(values), NOW)).toBe(expected);
  });

  it('ranks the worked example Finland, Germany, Netherlands', () => {
    const table = { Finland: [60, 61, 62], Germany: [20, 25, 300], Netherlands: [15, 18, null] };
    const ranked = Object.entries(table).sort(([, a], [, b]) => score(delays(a), NOW)! - score(delays(b), NOW)!);
    expect(ranked.map(([name]) => name)).toEqual(['Finland', 'Germany', 'Netherlands']);
  });

  it.each([
    { name: 'even n takes the LARGER middle value', values: [10, 20, 30, 40], expected: 30 + 30 },
    { name: 'two answers: the larger one plus the spread', values: [50, 70], expected: 70 + 20 },
    { name: 'order of measurement does not matter', values: [40, 10, 30, 20], expected: 30 + 30 },
    { name: 'each failure adds 1000', values: [100, null, 100, null], expected: 100 + 0 + 2000 },
    { name: 'n = 1, latest answered: r_last + 1000·f', values: [null, 80], expected: 80 + 1000 },
    { name: 'n = 1, the only answer is the latest', values: [90], expected: 90 },
    { name: 'n = 1, latest did not answer: no score', values: [80, null], expected: null },
    { name: 'n = 0: no score', values: [null, null], expected: null },
    { name: 'no measurements: no score', values: [], expected: null },
  ])('$name', ({ values, expected }) => {
    expect(score(delays(values), NOW)).toBe(expected);
  });

  it('counts only the last 5 measurements', () => {
    // Oldest first: the 900 ms one and the failure are 6th and 7th from the end and fall out.
    expect(score(delays([900, null, 10, 11, 12, 13, 14]), NOW)).toBe(12 + 4);
  });

  it('counts only measurements of the latest one method', () => {
    const list: Measurement[] = [
      ...delays([500, 600, null], { method: 'tcp', spacingMs: 120_000 }),
      { at: NOW - 30_000, method: 'url', delayMs: 40 },
      { at: NOW - 20_000, method: 'url', delayMs: 50 },
    ];
    expect(score(list, NOW)).toBe(50 + 10);
    // When the latest is a TCP ping, the URL ones do not count.
    expect(score([...list, { at: NOW - 1000, method: 'tcp', delayMs: 700 }], NOW)).toBe(600 + 200 + 1000);
  });

  it('takes the last 5 measurements in total, then those of the latest one method (seed: 5 kept per server)', () => {
    // tcp 500, url 40, 50, 60, 70, tcp 700: the five kept are url 40–70 and tcp 700; the latest is
    // TCP, so n = 1 and S = 700 (not 900 from both TCP pings).
    const list: Measurement[] = [
      { at: NOW - 6 * 60_000, method: 'tcp', delayMs: 500 },
      ...delays([40, 50, 60, 70], { now: NOW - 60_000 }),
      { at: NOW - 1000, method: 'tcp', delayMs: 700 },
    ];
    expect(score(list, NOW)).toBe(700);
    expect(countedMeasurements(list, NOW).map((m) => m.delayMs)).toEqual([700]);
    // The switch score of a URL check counts the four URL ones among those five.
    expect(switchScore(45, list, NOW)).toBe(45 + 30);
  });

  it('ignores measurements older than 24 h', () => {
    const list: Measurement[] = [
      { at: NOW - 25 * H, method: 'url', delayMs: 5 },
      { at: NOW - 25 * H + 1, method: 'url', delayMs: null },
      { at: NOW - 2 * H, method: 'url', delayMs: 100 },
      { at: NOW - H, method: 'url', delayMs: 110 },
    ];
    expect(score(list, NOW)).toBe(110 + 10);
    // Exactly 24 h old still counts.
    expect(countedMeasurements([{ at: NOW - 24 * H, method: 'url', delayMs: 1 }], NOW)).toHaveLength(1);
    // Everything stale: no score.
    expect(score([{ at: NOW - 30 * H, method: 'url', delayMs: 5 }], NOW)).toBeNull();
  });

  it('adds 20,000 ms to a result loaded from the previous run cache', () => {
    expect(score(delays([60, 61, 62]), NOW, { fromCache: true })).toBe(20_063);
    expect(score(delays([60, null]), NOW, { fromCache: true })).toBeNull();
  });

  it('upper median', () => {
    expect(upperMedian([1])).toBe(1);
    expect(upperMedian([1, 2])).toBe(2);
    expect(upperMedian([1, 2, 3])).toBe(2);
    expect(() => upperMedian([])).toThrow();
  });
});

describe("switch score S' = L + (max A − min A) + 1000·f", () => {
  it.each([
    { name: 'stable history', L: 40, history: [38, 41, 39], expected: 40 + 3 },
    { name: 'L outside the history widens the spread', L: 90, history: [38, 41, 39], expected: 90 + 52 },
    { name: 'jumpy all day', L: 20, history: [20, 25, 300], expected: 20 + 280 },
    { name: 'failures of the last 24 h', L: 18, history: [15, 18, null], expected: 18 + 3 + 1000 },
    { name: 'no history', L: 70, history: [], expected: 70 },
  ])('$name', ({ L, history, expected }) => {
    expect(switchScore(L, delays(history), NOW)).toBe(expected);
  });

  it('a server fast just now but jumpy all day yields to a stable one', () => {
    const jumpy = switchScore(20, delays([20, 25, 300]), NOW);
    const stable = switchScore(70, delays([70, 72, 71]), NOW);
    expect(stable).toBeLessThan(jumpy);
  });

  it('only the last 24 h count', () => {
    const old: Measurement[] = [
      { at: NOW - 30 * H, method: 'url', delayMs: 900 },
      { at: NOW - 29 * H, method: 'url', delayMs: null },
    ];
    expect(switchScore(50, old, NOW)).toBe(50);
  });
});
