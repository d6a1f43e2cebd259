/**
 * The verdict of spec/reachability.md, derived from fresh data every time it is asked for
 * (never stored): `ok`, `failing`, `down`, `blocked-here` or `unknown`, with a reason that names
 * the vantage points involved.
 *
 * In order:
 * 1. No fresh result from here → `unknown` (silence is not a verdict, seed rule 7).
 * 2. The latest fresh result from here answered → `ok`, whatever vantage points said before
 *    (self-healing, seed rule 8).
 * 3. The user's network looks lost → `unknown`: nothing is blamed (unreliable witness, rule 4).
 * 4. A streak below the threshold → `failing` (rule 2).
 * 5. The trusted checker has a fresh vote → it decides alone (rule 6): reached → `blocked-here`;
 *    not reached → `blocked`: the server's address is blocked where the checker stands, in those
 *    words (the seed: "we consider the ordinary server's address blocked"), not `down`. When the
 *    target is the trusted checker itself, other servers that cannot reach it say nothing (the
 *    seed: "the reverse has no meaning"): only their votes for it count.
 * 6. Reached through ≥ 2 independent exit networks → `blocked-here`; not reached through ≥ 2 and
 *    reached through none → `down` (quorum, rule 3). Vantage points of one exit network count
 *    once; a network's vote is its latest fresh observation. A vantage point that suddenly cannot
 *    see half or more of the servers it could see (witness.ts) has its votes set aside, named.
 * 7. Anything less → `unknown`, said honestly; a vantage point that cannot reach the target is a
 *    statement about the path between the two, and the reason names both ends (rule 5).
 */
import type { ServerId } from '../../../shared/domain/server';
import type { Reachability, Verdict } from '../../../shared/domain/status';
import { failureStreak, type HereResult, type NetworkAssessment, type Streak } from './here';
import type { VantageObservation } from './observation';
import type { ReachabilityRules } from './rules';

export type { VantageObservation };

export interface VerdictInput {
  target: { id: ServerId; name: string };
  /** URL results from here (the monitor's and confirmations), any order, any age. */
  here: readonly HereResult[];
  /** Observations through vantage points, any order, any age. */
  vantages: readonly VantageObservation[];
  network: NetworkAssessment;
  trustedCheckerId: ServerId | null;
  /**
   * Why no outside view can be had right now (the core cannot dial the target through another
   * server; no other server works in another exit network), to say so instead of "waiting".
   */
  outsideProblem?: string | null;
  rules: ReachabilityRules;
  /** Vantage points whose votes are set aside (witness.ts, assessVantages), with why. */
  unreliableVantages?: ReadonlyMap<ServerId, string>;
}

/** `streak`: `failureStreak(input.here, now, input.rules)`, when the caller has it already. */
export function deriveVerdict(input: VerdictInput, now: number, streak: Streak = failureStreak(input.here, now, input.rules)): Reachability {
  const { rules, target } = input;
  const result = (verdict: Verdict, reason: string, used: VantageObservation[] = []): Reachability => ({
    verdict,
    reason,
    vantagePoints: used.map((o) => ({ serverId: o.vantageId, reached: o.reached })),
    derivedAt: now,
  });

  if (!streak.latest) {
    const tested = input.here.some((r) => r.at <= now);
    return result('unknown', tested ? `no result from here in the last ${formatDuration(rules.freshnessMs)}: nothing to judge` : 'not tested from here yet');
  }
  if (streak.latest.ok) return result('ok', 'answers from here');
  if (input.network.lost) return result('unknown', `${input.network.reason ?? 'your network looks down'}: nothing is blamed on ${target.name}`);
  const fromHere = describeStreak(streak);
  if (!streak.counts) {
    return result('failing', `${fromHere}; ${streak.failures === 1 ? 'one failure means nothing' : 'not yet a verdict'} (a verdict needs ${rules.streakFailures} failures in a row over at least ${formatDuration(rules.streakMinSpanMs)})`);
  }

  const unreliable = input.unreliableVantages ?? new Map<ServerId, string>();
  const seen = latestPerVantage(input.vantages, now, rules).filter((o) => o.vantageId !== target.id);
  const setAside = seen.filter((o) => unreliable.has(o.vantageId));
  const isChecker = input.trustedCheckerId === target.id;
  const againstChecker = isChecker ? seen.filter((o) => !o.reached && !unreliable.has(o.vantageId)) : [];
  const fresh = seen.filter((o) => !unreliable.has(o.vantageId) && !againstChecker.includes(o));
  const trusted = input.trustedCheckerId && !isChecker ? fresh.find((o) => o.vantageId === input.trustedCheckerId) : undefined;
  if (trusted) {
    return trusted.reached
      ? result('blocked-here', `the trusted checker ${describe(trusted)} reaches ${target.name}, but it ${fromHere}: blocked on your network`, [trusted])
      : result('blocked', `the trusted checker ${describe(trusted)} cannot reach ${target.name}${because(trusted)}, and it ${fromHere}: the address of ${target.name} is blocked`, [trusted]);
  }

  const votes = votesPerNetwork(fresh);
  const reached = votes.filter((v) => v.reached);
  const unreached = votes.filter((v) => !v.reached);
  const shared = sharedNetworks(fresh);
  const notes = [
    ...(shared ? [shared] : []),
    ...setAside.map((o) => `${o.vantageName}'s votes are set aside: ${unreliable.get(o.vantageId)!}`),
  ];
  const note = notes.map((n) => `; ${n}`).join('');

  if (reached.length >= 2) {
    const against = unreached.length > 0 ? `; not reached through ${list(unreached)}` : '';
    return result('blocked-here', `reached through ${list(reached)} but it ${fromHere}: blocked on your network${against}${note}`, fresh);
  }
  if (unreached.length >= 2 && reached.length === 0) {
    return result('down', `not reached through ${list(unreached)}${pathsNote(unreached, target.name)}, and it ${fromHere}: the server looks down${note}`, fresh);
  }
  if (votes.length === 0) {
    if (againstChecker.length > 0) {
      const names = againstChecker.map((o) => o.vantageName);
      const who = names.length === 1 ? names[0]! : `${names.slice(0, -1).join(', ')} and ${names[names.length - 1]!}`;
      return result('unknown', `it ${fromHere}; ${target.name} is the trusted checker: that ${who} cannot reach it says nothing about it${note}`);
    }
    return result('unknown', `it ${fromHere}; ${input.outsideProblem ?? 'no outside vantage point has answered yet'}${note}`);
  }
  const need = 'need two independent vantage points';
  if (reached.length === 1 && unreached.length === 0) {
    return result('unknown', `reached through ${list(reached)} only, while it ${fromHere}; ${need}${input.outsideProblem ? ` (${input.outsideProblem})` : ''}${note}`, fresh);
  }
  if (reached.length === 0) {
    const only = unreached[0] as VantageObservation;
    return result(
      'unknown',
      `not reached through ${list(unreached)} either, while it ${fromHere}: that says something about the path between ${only.vantageName} and ${target.name}, not which end is blocked; ${need}${input.outsideProblem ? ` (${input.outsideProblem})` : ''}${note}`,
      fresh,
    );
  }
  return result(
    'unknown',
    `vantage points disagree: reached through ${list(reached)}, not through ${list(unreached)}${pathsNote(unreached, target.name)}; it ${fromHere}; ${need} that agree${note}`,
    fresh,
  );
}

/** The latest fresh observation of each vantage point, by name (a stable order for reasons and change detection). */
export function latestPerVantage(observations: readonly VantageObservation[], now: number, rules: ReachabilityRules): VantageObservation[] {
  const latest = new Map<ServerId, VantageObservation>();
  for (const o of observations) {
    if (o.at > now || now - o.at > rules.freshnessMs) continue;
    const seen = latest.get(o.vantageId);
    if (!seen || o.at >= seen.at) latest.set(o.vantageId, o);
  }
  return [...latest.values()].sort((a, b) => a.vantageName.localeCompare(b.vantageName) || a.vantageId.localeCompare(b.vantageId));
}

/** One vote per exit network: its latest observation. */
export function votesPerNetwork(observations: readonly VantageObservation[]): VantageObservation[] {
  const byNetwork = new Map<string, VantageObservation>();
  for (const o of observations) {
    const seen = byNetwork.get(o.network.key);
    if (!seen || o.at >= seen.at) byNetwork.set(o.network.key, o);
  }
  return [...byNetwork.values()];
}

function sharedNetworks(observations: readonly VantageObservation[]): string | null {
  const groups = new Map<string, VantageObservation[]>();
  for (const o of observations) groups.set(o.network.key, [...(groups.get(o.network.key) ?? []), o]);
  const shared = [...groups.values()].filter((g) => g.length > 1);
  if (shared.length === 0) return null;
  return shared.map((g) => `${g.map((o) => o.vantageName).join(' and ')} exit in one network (${(g[0] as VantageObservation).network.label}), counted once`).join('; ');
}

function describe(o: VantageObservation): string {
  return `${o.vantageName} (${o.network.label})`;
}

function because(o: VantageObservation): string {
  return o.error ? ` (${o.error})` : '';
}

function list(observations: readonly VantageObservation[]): string {
  const parts = observations.map((o) => `${describe(o)}${o.reached ? '' : because(o)}`);
  if (parts.length <= 1) return parts.join('');
  return `${parts.slice(0, -1).join(', ')} and ${parts[parts.length - 1]}`;
}

function pathsNote(unreached: readonly VantageObservation[], targetName: string): string {
  if (unreached.length !== 1) return '';
  return ` (the path between ${(unreached[0] as VantageObservation).vantageName} and ${targetName})`;
}

function describeStreak(streak: Streak): string {
  if (streak.failures === 1) return 'failed from here once';
  const span = (streak.lastAt as number) - (streak.firstAt as number);
  return `failed from here ${streak.failures} times in a row over ${formatDuration(span)}`;
}

/** "0.8 s", "12 s", "5 min", "2 h". */
export function formatDuration(ms: number): string {
  if (ms < 10_000) return `${Math.round(ms / 100) / 10} s`;
  if (ms < 120_000) return `${Math.round(ms / 1000)} s`;
  if (ms < 2 * 3600_000) return `${Math.round(ms / 60_000)} min`;
  return `${Math.round(ms / 3600_000)} h`;
}
