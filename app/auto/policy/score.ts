/**
 * The score of spec/auto.md: an order over a subscription's servers, not a liveness verdict.
 *
 *     S  = median(r) + (rn − r1) + 1000·f     when n ≥ 2 (even n: the LARGER middle value)
 *     S  = r_last + 1000·f                    when n < 2
 *     S' = L + (max A − min A) + 1000·f       when switching (L = the delay in this check)
 *
 * Which measurements count: of the server's last 5 measurements (of any method: seed 001 keeps
 * the last 5 per server), those made with the same method as the latest one and no older than
 * 24 h. So tcp 500, url 40, 50, 60, 70, tcp 700 keeps the four URL ones and tcp 700, and the score
 * is 700 (n = 1), not 900 from both TCP pings.
 *
 * r_last when n < 2: the latest measurement's delay. If the latest measurement did not answer
 * there is no r_last and the server has no score (auto.md: "a server has no score when n < 2 and
 * its latest measurement did not answer"); the queue then puts it in the last group. So with
 * n = 1 a score exists only when that one answer is the latest measurement.
 *
 * Results loaded from the previous run's cache (spec/monitor.md "Persisted results") cost
 * 20,000 ms more, so a fresh test wins.
 */
import type { Measurement, ProbeMethod } from '../../../shared/domain/measurement';
import { AUTO_RULES } from './constants';

/** The measurements that count for a score at `now`, oldest first. */
export function countedMeasurements(measurements: readonly Measurement[], now: number, method?: ProbeMethod): Measurement[] {
  const latest = latestOf(measurements);
  if (!latest) return [];
  const wanted = method ?? latest.method;
  const since = now - AUTO_RULES.scoreMaxAgeMs;
  return sortedByTime(measurements)
    .slice(-AUTO_RULES.scoreWindow)
    .filter((m) => m.method === wanted && m.at >= since);
}

export interface ScoreOptions {
  /** The server's latest result was loaded from the previous run's cache. */
  fromCache?: boolean;
}

/** S, or null when the server has no score. */
export function score(measurements: readonly Measurement[], now: number, options: ScoreOptions = {}): number | null {
  const counted = countedMeasurements(measurements, now);
  if (counted.length === 0) return null;
  const answered = delaysAscending(counted);
  const failures = counted.length - answered.length;
  const penalty = AUTO_RULES.failurePenaltyMs * failures + (options.fromCache ? AUTO_RULES.cachedPenaltyMs : 0);
  if (answered.length >= 2) {
    const first = answered[0]!;
    const last = answered[answered.length - 1]!;
    return upperMedian(answered) + (last - first) + penalty;
  }
  const latestDelay = counted[counted.length - 1]!.delayMs;
  if (latestDelay === null) return null;
  return latestDelay + penalty;
}

/**
 * S' of a server that answered this check after `delayMs`: its delay now, plus how far its
 * answers of the last 24 h (this one included) spread, plus 1000 per unanswered measurement of
 * that time. The same measurements count as for S (of the last 5, the check's method, 24 h).
 */
export function switchScore(delayMs: number, measurements: readonly Measurement[], now: number, method: ProbeMethod = 'url'): number {
  const counted = countedMeasurements(measurements, now, method);
  const answered = [delayMs, ...delaysAscending(counted)];
  const failures = counted.filter((m) => m.delayMs === null).length;
  return delayMs + (Math.max(...answered) - Math.min(...answered)) + AUTO_RULES.failurePenaltyMs * failures;
}

/** The median of an ascending list; with an even count the larger of the two middle values. */
export function upperMedian(ascending: readonly number[]): number {
  if (ascending.length === 0) throw new Error('median of nothing');
  return ascending[Math.floor(ascending.length / 2)]!;
}

export function latestOf(measurements: readonly Measurement[]): Measurement | undefined {
  let latest: Measurement | undefined;
  for (const m of measurements) if (!latest || m.at >= latest.at) latest = m;
  return latest;
}

function sortedByTime(measurements: readonly Measurement[]): Measurement[] {
  return measurements
    .map((m, index) => ({ m, index }))
    .sort((a, b) => a.m.at - b.m.at || a.index - b.index)
    .map(({ m }) => m);
}

function delaysAscending(measurements: readonly Measurement[]): number[] {
  return measurements.flatMap((m) => (m.delayMs === null ? [] : [m.delayMs])).sort((a, b) => a - b);
}
