/**
 * The unreliable-witness rule (seed 004, rule 4): a vantage point that suddenly cannot see half or
 * more of the servers it could see is the broken one, and its votes are set aside. It applies to
 * every vantage point: the user's own network (here.ts, assessNetwork) and each server used as an
 * outside vantage point (assessVantages below).
 *
 * "Could see": the witness reached the server within the lookback (Auto's 24 h); a server it never
 * reached is no evidence (free subscriptions are full of dead entries). "Suddenly cannot": its
 * latest fresh result of that server failed. At least two must fail: one server failing is no
 * evidence about the one looking at it.
 */
import type { ServerId } from '../../../shared/domain/server';
import type { ReachabilityRules } from './rules';
import type { VantageObservation } from './observation';

export interface WitnessCount {
  /** Servers the witness reached within the lookback and has a fresh result of. */
  witnesses: number;
  /** Of those, the ones whose latest fresh result failed. */
  failing: number;
}

export function witnessLooksBroken(count: WitnessCount, rules: ReachabilityRules): boolean {
  return count.failing >= rules.networkLostMinFailing && count.failing >= count.witnesses * rules.networkLostShare;
}

/** Counts one server's results as seen by one witness (results of any age, any order). */
export function countWitness(count: WitnessCount, results: readonly { at: number; ok: boolean }[], now: number, rules: ReachabilityRules): void {
  let latest: { at: number; ok: boolean } | null = null;
  let reached = false;
  for (const r of results) {
    if (r.at > now) continue;
    // Two results of one instant (a confirmation joined the monitor's flight): the answer wins.
    if (now - r.at <= rules.freshnessMs && (!latest || r.at > latest.at || (r.at === latest.at && r.ok))) latest = r;
    if (r.ok && now - r.at <= rules.witnessLookbackMs) reached = true;
  }
  if (!latest || !reached) return;
  count.witnesses++;
  if (!latest.ok) count.failing++;
}

/**
 * The vantage points whose votes are set aside, each with the reason in words, from every
 * observation made through them (by target).
 */
export function assessVantages(
  observationsByTarget: ReadonlyMap<ServerId, readonly VantageObservation[]>,
  now: number,
  rules: ReachabilityRules,
): Map<ServerId, string> {
  const perVantage = new Map<ServerId, { name: string; byTarget: Map<ServerId, { at: number; ok: boolean }[]> }>();
  for (const [target, observations] of observationsByTarget) {
    for (const o of observations) {
      const entry = perVantage.get(o.vantageId) ?? { name: o.vantageName, byTarget: new Map() };
      perVantage.set(o.vantageId, entry);
      entry.byTarget.set(target, [...(entry.byTarget.get(target) ?? []), { at: o.at, ok: o.reached }]);
    }
  }
  const unreliable = new Map<ServerId, string>();
  for (const [id, { name, byTarget }] of perVantage) {
    const count: WitnessCount = { witnesses: 0, failing: 0 };
    for (const results of byTarget.values()) countWitness(count, results, now, rules);
    if (witnessLooksBroken(count, rules)) unreliable.set(id, `${name} suddenly cannot reach ${count.failing} of the ${count.witnesses} servers it reached`);
  }
  return unreliable;
}

/**
 * What of one target's observations is worth keeping: the fresh ones (the votes), and, for each
 * vantage point, its latest success within the lookback: the memory that it "could see" the
 * target, without which a witness that went blind would be trusted again once its last success
 * aged out of the freshness window. Oldest first.
 */
export function keptObservations(list: readonly VantageObservation[], now: number, rules: ReachabilityRules): VantageObservation[] {
  const lastReached = new Map<ServerId, VantageObservation>();
  for (const o of list) {
    if (o.reached && now - o.at <= rules.witnessLookbackMs && o.at <= now && (lastReached.get(o.vantageId)?.at ?? Number.NEGATIVE_INFINITY) <= o.at) lastReached.set(o.vantageId, o);
  }
  return list.filter((o) => now - o.at <= rules.freshnessMs || lastReached.get(o.vantageId) === o);
}
