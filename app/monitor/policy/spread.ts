import type { ServerId } from '../../../shared/domain/server';

/**
 * The share of the interval a scheduled cycle spreads its tests over (spec/observatory.md "Burst
 * observer": probes spread at random over the period, so they never hit the network at once).
 * A quarter leaves the cycle done long before the next is due: `isDue`'s slack covers a cycle of
 * up to half the interval, and a cycle that has to repeat with the next URL still fits.
 */
export const SPREAD_SHARE_OF_INTERVAL = 1 / 4;

/**
 * When each test of a scheduled cycle may start, in ms after the cycle's start: one random moment
 * per server in `[0, windowMs)`, handed out in the cycle's own order, so the order (fastest first)
 * holds while the moments are random. A cycle someone asked for (start, test all, a network
 * change, traffic resumed) is not spread: its results are wanted now.
 */
export function spreadStarts(ids: readonly ServerId[], windowMs: number, random: () => number): Map<ServerId, number> {
  const moments = ids.map(() => Math.floor(random() * Math.max(0, windowMs))).sort((a, b) => a - b);
  return new Map(ids.map((id, index) => [id, moments[index] as number]));
}

export const spreadWindowMs = (intervalMs: number): number => Math.floor(intervalMs * SPREAD_SHARE_OF_INTERVAL);
