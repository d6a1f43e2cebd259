/**
 * The view from here: a server's streak of failures (seed rule 2: one failure means nothing,
 * streaks do) and the unreliable-witness rule (seed rule 4: when the user's own network suddenly
 * cannot reach half or more of the servers, the network is the broken one and nobody is blamed).
 */
import type { ServerId } from '../../../shared/domain/server';
import type { ReachabilityRules } from './rules';
import { countWitness, witnessLooksBroken, type WitnessCount } from './witness';

/** One URL test of a server from the user's network: the monitor's or a confirmation. */
export interface HereResult {
  at: number;
  ok: boolean;
}

export interface Streak {
  /** Consecutive failures ending with the latest result (0 when it answered or is not fresh). */
  failures: number;
  firstAt: number | null;
  lastAt: number | null;
  /** The streak is long enough to blame someone: enough failures over enough time. */
  counts: boolean;
  /** The latest result when it is fresh, else null. */
  latest: HereResult | null;
}

/** Results up to `now`, oldest first, one per instant (a result seen twice is one result). */
function ordered(results: readonly HereResult[], now: number): HereResult[] {
  // Most servers have none or one (every untested server, each snapshot): no map to build.
  if (results.length <= 1) return results.filter((r) => r.at <= now);
  const byTime = new Map<number, HereResult>();
  for (const r of results) {
    if (r.at > now) continue;
    const seen = byTime.get(r.at);
    // Two sources reporting one instant: an answer wins (a confirmation joined the monitor's flight).
    if (!seen || (!seen.ok && r.ok)) byTime.set(r.at, r);
  }
  return [...byTime.values()].sort((a, b) => a.at - b.at);
}

/**
 * The failures in a row that end with the latest result, which must be fresh. Older failures
 * belong to the streak as long as no gap between two of them is longer than the freshness
 * window: a server failing every cycle for an hour keeps one long streak (a verdict does not
 * flicker back to `failing` as its first failures age), while failures from before a pause in
 * testing (an idle device) start nothing.
 */
export function failureStreak(results: readonly HereResult[], now: number, rules: ReachabilityRules): Streak {
  const all = ordered(results, now);
  const last = all[all.length - 1];
  const latest = last && now - last.at <= rules.freshnessMs ? last : null;
  let failures = 0;
  let firstAt: number | null = null;
  if (latest && !latest.ok) {
    let next = latest;
    for (let i = all.length - 1; i >= 0; i--) {
      const r = all[i] as HereResult;
      if (r.ok || next.at - r.at > rules.freshnessMs) break;
      failures++;
      firstAt = r.at;
      next = r;
    }
  }
  const lastAt = failures > 0 ? (latest as HereResult).at : null;
  const counts = failures >= rules.streakFailures && (lastAt as number) - (firstAt as number) >= rules.streakMinSpanMs;
  return { failures, firstAt, lastAt, counts, latest };
}

export interface NetworkAssessment {
  lost: boolean;
  /** Servers that answered from here within the lookback and have a fresh result. */
  witnesses: number;
  /** Of those, the ones whose latest fresh result failed. */
  failing: number;
  /** Why, in words, when lost. */
  reason: string | null;
}

/**
 * The unreliable-witness rule (witness.ts), with the user's network as the witness: among servers
 * that answered from here recently, when half or more — and at least two — now fail, the network
 * is the likelier culprit. `outside` is a signal from elsewhere (Auto in its network-lost state,
 * the OS saying offline) that wins on its own.
 */
export function assessNetwork(
  resultsByServer: ReadonlyMap<ServerId, readonly HereResult[]>,
  now: number,
  rules: ReachabilityRules,
  outside: string | null = null,
): NetworkAssessment {
  const count: WitnessCount = { witnesses: 0, failing: 0 };
  for (const results of resultsByServer.values()) countWitness(count, results, now, rules);
  const { witnesses, failing } = count;
  if (outside) return { lost: true, witnesses, failing, reason: outside };
  if (witnessLooksBroken(count, rules)) {
    return {
      lost: true,
      witnesses,
      failing,
      reason: `your network looks down: ${failing} of ${witnesses} servers that worked fail from here at once`,
    };
  }
  return { lost: false, witnesses, failing, reason: null };
}
