/**
 * Reachability's decisions: `plan(view, now) → { probes, wakeAt, logs, … }` (pure). Given what is
 * known now (./view.ts), what probing is under way and what has been said, it derives every
 * server's verdict (./verdict.ts), says what the log and the listeners are told (./report.ts),
 * which probes to spend (./planner.ts: confirmations from here, rounds through vantage points, the
 * probe budget across all servers) and when it next needs a look without new data.
 *
 * - No probe is planned while the monitor is idle (an idle device is not touched); its data then
 *   ages out and verdicts fall back to `unknown`.
 * - The failure episodes it opens and closes are what a verdict's `[spent: …]` counts.
 */
import type { Server, ServerId } from '../../../shared/domain/server';
import type { Reachability } from '../../../shared/domain/status';
import type { ExitNetwork } from './exit-network';
import { failureStreak, type Streak } from './here';
import { chooseVantages, planConfirmation, planRound, type VantageCandidate } from './planner';
import { changed, isQuiet, type LoggedVerdict, networkLine, type Reported, roundLine, verdictLine, verdictLineDue, type VerdictChange } from './report';
import { describeSpend, type EpisodeSpend, type VerdictBudget, verdictBudget } from './spend';
import { deriveVerdict } from './verdict';
import type { ReachabilityView } from './view';

export interface PlanView extends ReachabilityView {
  /** Whether the monitor tests now. */
  active: boolean;
  probing: {
    lastRoundAt: ReadonlyMap<ServerId, number>;
    roundsInFlight: ReadonlySet<ServerId>;
    confirmsInFlight: ReadonlySet<ServerId>;
  };
  spent: {
    /** Start times of vantage probes (all targets), any age. */
    probeTimes: readonly number[];
    /** Open failure episodes. */
    episodes: ReadonlyMap<ServerId, Readonly<EpisodeSpend>>;
  };
  reported: Reported;
}

export type PlannedProbe =
  /** Re-test the server from here (`failures`: its streak so far, for the log). */
  | { kind: 'confirm'; serverId: ServerId; failures: number }
  /** Probe the target through each vantage point, in parallel. */
  | { kind: 'round'; targetId: ServerId; vantages: VantageCandidate[]; failures: number };

export interface Plan {
  probes: PlannedProbe[];
  /** When to look again without new data (data ageing out, a probe falling due); Infinity: never. */
  wakeAt: number;
  /** `reachability:` lines, in order. */
  logs: string[];
  /** Verdicts that changed since listeners last heard. */
  changes: VerdictChange[];
  /** What has been said once this plan is carried out. */
  reported: Reported;
  /** Failure episodes that begin now (before this plan's probes) and that are over. */
  episodes: { begun: { serverId: ServerId; firstFailureAt: number }[]; ended: ServerId[] };
  /** What each verdict logged during a failure episode cost so far (the ledger keeps them). */
  budgets: VerdictBudget[];
}

export function plan(view: PlanView, now: number): Plan {
  const network = networkLine(view.reported.networkLost, view.network);
  const pass: Pass = {
    view,
    now,
    // Probes planned for earlier servers count against the budget of later ones.
    probeTimes: [...view.spent.probeTimes],
    shown: new Map(),
    logged: new Map(),
    out: { probes: [], wakeAt: Number.POSITIVE_INFINITY, logs: network.line ? [network.line] : [], changes: [], reported: view.reported, episodes: { begun: [], ended: [] }, budgets: [] },
  };
  const { out } = pass;
  for (const server of view.servers) {
    const streak = failureStreak(view.here.get(server.id) ?? [], now, view.rules);
    const current = verdictAt(view, server, streak, now);
    report(pass, server, current, streak);
    const episode = view.spent.episodes.get(server.id);
    if (episode && (!streak.latest || current.verdict === 'ok')) out.episodes.ended.push(server.id);
    // An idle device never has its servers touched: no confirmations, no rounds (spec/monitor.md).
    if (!view.active) continue;
    if (streak.failures > 0 && !episode) out.episodes.begun.push({ serverId: server.id, firstFailureAt: streak.firstAt as number });
    out.wakeAt = Math.min(out.wakeAt, spend(pass, server, streak));
  }
  out.wakeAt = Math.min(out.wakeAt, nextExpiry(view, now));
  out.reported = { shown: pass.shown, logged: pass.logged, networkLost: network.lost };
  return out;
}

/** One plan in the making. */
interface Pass {
  view: PlanView;
  now: number;
  probeTimes: number[];
  shown: Map<ServerId, Reachability>;
  logged: Map<ServerId, LoggedVerdict>;
  out: Plan;
}

/** One server's verdict with its reason and vantage points, derived now (null: not listed). */
export function verdictOf(view: ReachabilityView, serverId: ServerId, now: number): Reachability | null {
  const server = view.byId.get(serverId);
  if (!server) return null;
  return verdictAt(view, server, failureStreak(view.here.get(serverId) ?? [], now, view.rules), now);
}

function verdictAt(view: ReachabilityView, server: Server, streak: Streak, now: number): Reachability {
  const { rules, trustedCheckerId } = view;
  // Who could be asked matters only to explain a missing quorum: worked out only then.
  const needsOutside = streak.counts && !view.network.lost;
  const problem = needsOutside ? chooseVantages(targetOf(view, server), view.candidates(), trustedCheckerId, rules, unsupportedFor(view, server)).problem : null;
  return deriveVerdict(
    {
      target: { id: server.id, name: server.name },
      here: view.here.get(server.id) ?? [],
      vantages: view.observations.get(server.id) ?? [],
      network: view.network,
      trustedCheckerId,
      outsideProblem: problem,
      rules,
      unreliableVantages: view.unreliableVantages,
    },
    now,
    streak,
  );
}

function report(pass: Pass, server: Server, current: Reachability, streak: Streak): void {
  const { view, now, out } = pass;
  let said = view.reported.logged.get(server.id);
  // While a round's votes come in, the line waits for the last of them.
  const due = view.probing.roundsInFlight.has(server.id) ? null : verdictLineDue(said, current, isQuiet(current, streak, view.network));
  if (due) {
    if (due.line) {
      const episode = view.spent.episodes.get(server.id);
      const budget = episode ? verdictBudget(server, current.verdict, episode, now) : null;
      if (budget) out.budgets.push(budget);
      out.logs.push(verdictLine(server.name, current, budget ? describeSpend(budget) : ''));
    }
    said = due.logged;
  }
  if (said) pass.logged.set(server.id, said);
  const previous = view.reported.shown.get(server.id) ?? null;
  if (changed(previous, current)) out.changes.push({ serverId: server.id, previous, current });
  pass.shown.set(server.id, changed(previous, current) ? current : (previous as Reachability));
}

/** Confirmations and rounds for one server; returns when it next needs a look. */
function spend(pass: Pass, server: Server, streak: Streak): number {
  const { view, now, out, probeTimes } = pass;
  const { rules } = view;
  let wake = Number.POSITIVE_INFINITY;
  let confirm = false;
  const confirming = view.probing.confirmsInFlight.has(server.id);
  const confirmation = planConfirmation(streak, view.network, confirming, rules, now);
  if (confirmation.kind === 'now') confirm = true;
  else if (confirmation.kind === 'at') wake = confirmation.at;

  const mayAsk = streak.latest !== null && !streak.latest.ok && streak.failures >= rules.vantageAfterFailures && !view.network.lost;
  const round = planRound(
    {
      target: targetOf(view, server),
      streak,
      network: view.network,
      candidates: mayAsk ? view.candidates() : [],
      unsupported: unsupportedFor(view, server),
      trustedCheckerId: view.trustedCheckerId,
      lastRoundAt: view.probing.lastRoundAt.get(server.id) ?? null,
      roundInFlight: view.probing.roundsInFlight.has(server.id),
      probeTimes,
      rules,
    },
    now,
  );
  if (round.kind === 'wait') wake = Math.min(wake, round.until);
  else if (round.kind === 'confirm-first' && !confirming) confirm = true;
  if (confirm) out.probes.push({ kind: 'confirm', serverId: server.id, failures: streak.failures });
  if (round.kind === 'probe') {
    out.probes.push({ kind: 'round', targetId: server.id, vantages: round.vantages, failures: streak.failures });
    out.logs.push(roundLine(server.name, streak.failures, round.vantages, `${round.why}${round.problem ? `; ${round.problem}` : ''}`));
    for (const _ of round.vantages) probeTimes.push(now);
  }
  return wake;
}

function targetOf(view: ReachabilityView, server: Server): { id: ServerId; name: string; network: ExitNetwork } {
  return { id: server.id, name: server.name, network: view.exitNetworks.get(server.id) as ExitNetwork };
}

/** Why the core cannot dial `target` through a candidate. */
function unsupportedFor(view: ReachabilityView, target: Server): (candidate: VantageCandidate) => string | null {
  return (candidate) => {
    const vantage = view.byId.get(candidate.id);
    return vantage ? view.unsupported(vantage, target) : 'not in the server list';
  };
}

/** When the oldest fresh piece of data goes stale (a verdict may change then without any new data). */
function nextExpiry(view: ReachabilityView, now: number): number {
  const freshness = view.rules.freshnessMs;
  let next = Number.POSITIVE_INFINITY;
  const consider = (at: number) => {
    const expires = at + freshness + 1;
    if (expires > now && expires < next) next = expires;
  };
  for (const results of view.here.values()) {
    const latest = results.reduce((max, r) => Math.max(max, r.at), Number.NEGATIVE_INFINITY);
    if (Number.isFinite(latest)) consider(latest);
    // The start of a failure streak ageing out shortens it.
    for (const r of results) if (!r.ok) consider(r.at);
  }
  for (const list of view.observations.values()) for (const o of list) consider(o.at);
  return next;
}
