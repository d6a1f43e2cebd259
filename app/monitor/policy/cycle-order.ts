import type { ServerId } from '../../../shared/domain/server';
import { isDue } from './timing';

/** What the cycle order needs to know of a server. */
export interface CycleCandidate {
  id: ServerId;
  /**
   * The last result, cached or not: a delay (it answered), null (it failed), undefined (never
   * tested, not even in the last run).
   */
  lastDelayMs: number | null | undefined;
  testedAt: number | null;
  /** Marked for testing (network change, "test all", a chain that recovered). */
  marked: boolean;
}

/**
 * Which servers a cycle tests, in order (spec/monitor.md "When tests run"): those whose result is
 * older than `interval` or that are marked; fastest first by last result (cached or not, so the
 * first cycle confirms last run's fastest before the rest), then untested ones, then failed ones.
 * Ties keep the given (subscription) order.
 */
export function cycleOrder(candidates: readonly CycleCandidate[], now: number, intervalMs: number, slackMs = 0): ServerId[] {
  const due = candidates
    .map((c, index) => ({ c, index }))
    .filter(({ c }) => c.marked || isDue(c.testedAt, now, intervalMs, slackMs));
  const rank = (c: CycleCandidate): number => (typeof c.lastDelayMs === 'number' ? 0 : c.lastDelayMs === undefined ? 1 : 2);
  due.sort((a, b) => {
    const byRank = rank(a.c) - rank(b.c);
    if (byRank !== 0) return byRank;
    if (typeof a.c.lastDelayMs === 'number' && typeof b.c.lastDelayMs === 'number' && a.c.lastDelayMs !== b.c.lastDelayMs) {
      return a.c.lastDelayMs - b.c.lastDelayMs;
    }
    return a.index - b.index;
  });
  return due.map(({ c }) => c.id);
}
