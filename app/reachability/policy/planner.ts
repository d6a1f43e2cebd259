/**
 * Which probes reachability spends, and when (pure). Two kinds:
 *
 * - **Confirmations from here**: a failure from here is re-tested from here `confirmSpacing`
 *   after it, while the streak is below the threshold, so a blink clears itself within seconds
 *   and a real failure becomes a streak within about a minute (not two more monitor cycles).
 *   Never while the user's network looks lost.
 * - **Rounds of vantage probes**: once a server keeps failing from here (2 in a row), ask up to
 *   3 outside vantage points — working servers (their latest fresh result from here answered) in
 *   other exit networks than the target's, one per network, ASN-known networks first, fastest
 *   first; the trusted checker alone when it works, since its single vote decides. At most one
 *   round per server per monitor interval, and at most `maxProbesPerWindow` probes per interval
 *   across all servers (a dead subscription must not turn into a flood of chained dials). A round
 *   starts only right after a failure from here (`roundFailureWindowMs`); one that falls due later
 *   re-tests from here first, so outside votes always meet a failure from here of the same moment.
 */
import type { ServerId } from '../../../shared/domain/server';
import type { ExitNetwork } from './exit-network';
import type { NetworkAssessment, Streak } from './here';
import type { ReachabilityRules } from './rules';
import { formatDuration } from './verdict';

export interface VantageCandidate {
  id: ServerId;
  name: string;
  network: ExitNetwork;
  /** The latest fresh result from here answered in this many ms; null: not working now. */
  workingDelayMs: number | null;
  /** Position in the server list (ties keep list order). */
  index: number;
}

export interface RoundPlanInput {
  target: { id: ServerId; name: string; network: ExitNetwork | null };
  streak: Streak;
  network: NetworkAssessment;
  /** Every other server. */
  candidates: readonly VantageCandidate[];
  /** Why the core cannot dial the target through this candidate, or null (asked only of the few about to be chosen). */
  unsupported: (candidate: VantageCandidate) => string | null;
  trustedCheckerId: ServerId | null;
  /** When this target's last round started. */
  lastRoundAt: number | null;
  roundInFlight: boolean;
  /** Start times of every vantage probe (all targets), any age. */
  probeTimes: readonly number[];
  rules: ReachabilityRules;
}

export type RoundPlan =
  | { kind: 'probe'; vantages: VantageCandidate[]; why: string; problem: string | null }
  | { kind: 'wait'; until: number; why: string }
  /** Due, but the last failure from here is not recent: re-test from here first, then ask. */
  | { kind: 'confirm-first'; why: string }
  /** Nothing to ask now; `problem` says why when it is worth telling the user. */
  | { kind: 'none'; why: string; problem: string | null };

export function planRound(input: RoundPlanInput, now: number): RoundPlan {
  const { rules, streak, target } = input;
  if (!streak.latest || streak.latest.ok) return none('answers from here (or no fresh result): nothing to check');
  if (input.network.lost) return none(`${input.network.reason ?? 'your network looks down'}: no vantage probes`);
  if (streak.failures < rules.vantageAfterFailures) return none(`failed ${streak.failures} time(s): waiting for the streak`);
  if (input.roundInFlight) return none('a round is under way');
  if (input.lastRoundAt !== null && now < input.lastRoundAt + rules.roundIntervalMs) {
    return { kind: 'wait', until: input.lastRoundAt + rules.roundIntervalMs, why: `at most one round per ${formatDuration(rules.roundIntervalMs)}` };
  }
  if (now - (streak.lastAt as number) > rules.roundFailureWindowMs) {
    return { kind: 'confirm-first', why: `the last failure from here is ${formatDuration(now - (streak.lastAt as number))} old: re-test from here before asking outside` };
  }

  const choice = chooseVantages(target, input.candidates, input.trustedCheckerId, rules, input.unsupported);
  if (choice.chosen.length === 0) return none('no usable vantage point', choice.problem);
  const chosen = choice.chosen;

  const windowStart = now - rules.roundIntervalMs;
  const spent = input.probeTimes.filter((t) => t > windowStart && t <= now).sort((a, b) => a - b);
  const left = rules.maxProbesPerWindow - spent.length;
  if (left <= 0) {
    const until = (spent[0] as number) + rules.roundIntervalMs;
    return { kind: 'wait', until, why: `probe budget spent: ${spent.length} vantage probes in the last ${formatDuration(rules.roundIntervalMs)}` };
  }
  // A partial round says so: the log names whom it asks, and why fewer than were chosen.
  if (chosen.length > left) return { kind: 'probe', vantages: chosen.slice(0, left), why: `${choice.why}, ${left} of them within the probe budget`, problem: choice.problem };
  return { kind: 'probe', vantages: chosen, why: choice.why, problem: choice.problem };
}

export interface VantageChoice {
  /** Whom to ask, in order. */
  chosen: VantageCandidate[];
  why: string;
  /** What keeps the outside view short of a quorum (none usable, or only one network), else null. */
  problem: string | null;
}

/**
 * The vantage points for `target`: working servers in other exit networks whose chained dial the
 * core can make; the trusted checker alone when it is one of them; else the fastest of each
 * network, at most `maxVantagesPerRound`.
 */
export function chooseVantages(
  target: RoundPlanInput['target'],
  candidates: readonly VantageCandidate[],
  trustedCheckerId: ServerId | null,
  rules: ReachabilityRules,
  unsupported: (candidate: VantageCandidate) => string | null = () => null,
): VantageChoice {
  const outside = candidates.filter(
    (c) => c.id !== target.id && c.workingDelayMs !== null && (!target.network || c.network.key !== target.network.key),
  );
  let firstProblem: string | null = null;
  const usable = (c: VantageCandidate): boolean => {
    const why = unsupported(c);
    firstProblem ??= why;
    return why === null;
  };
  const trusted = trustedCheckerId ? outside.find((c) => c.id === trustedCheckerId) : undefined;
  if (trusted && usable(trusted)) return { chosen: [trusted], why: `the trusted checker ${trusted.name} works: its vote decides`, problem: null };
  // The fastest usable server of each exit network, ASN-known networks first, until enough.
  const chosen: VantageCandidate[] = [];
  const networks = new Set<string>();
  for (const c of [...outside].sort(preference)) {
    if (chosen.length >= rules.maxVantagesPerRound) break;
    if (networks.has(c.network.key) || !usable(c)) continue;
    networks.add(c.network.key);
    chosen.push(c);
  }
  if (chosen.length === 0) {
    const working = candidates.some((c) => c.id !== target.id && c.workingDelayMs !== null);
    const problem =
      outside.length > 0
        ? firstProblem
        : working
          ? `every other working server exits in the same network as ${target.name} (${target.network?.label ?? 'unknown'})`
          : 'no other server works from here to check it through';
    return { chosen: [], why: 'no usable vantage point', problem };
  }
  const problem = chosen.length < 2 ? `only ${(chosen[0] as VantageCandidate).name} works from here in another exit network` : null;
  return { chosen, why: `${chosen.length} vantage point(s) in as many exit networks`, problem };
}

const KIND_RANK = { asn: 0, prefix: 1, unknown: 2 } as const;

/** ASN-known networks first, then fastest, then list order. */
function preference(a: VantageCandidate, b: VantageCandidate): number {
  return KIND_RANK[a.network.kind] - KIND_RANK[b.network.kind] || (a.workingDelayMs as number) - (b.workingDelayMs as number) || a.index - b.index;
}

function none(why: string, problem: string | null = null): RoundPlan {
  return { kind: 'none', why, problem };
}

export type ConfirmPlan = { kind: 'now' } | { kind: 'at'; at: number } | { kind: 'none' };

/** Whether (and when) to re-test a failing server from here. */
export function planConfirmation(streak: Streak, network: NetworkAssessment, inFlight: boolean, rules: ReachabilityRules, now: number): ConfirmPlan {
  if (!streak.latest || streak.latest.ok || streak.counts || network.lost || inFlight) return { kind: 'none' };
  const due = (streak.lastAt as number) + rules.confirmSpacingMs;
  return due <= now ? { kind: 'now' } : { kind: 'at', at: due };
}
