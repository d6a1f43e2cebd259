/**
 * The four failover scenarios, one trial each. Every trial starts settled (trial.ts), faults the
 * lab, and reads what happened from the user's traffic (which exit answered, when), Auto's
 * decisions, the tunnel's dial events and the lab's counters. Times are epoch ms on this machine;
 * `fault` is the moment the bench asked the lab for the fault (the lab applies it ~1–3 ms later).
 */
import type { AutoDecision } from '../../../shared/domain/auto';
import type { TrafficRequest } from './exit-traffic';
import type { Spent, TrialKit } from './trial';
import { sleep } from './world';
import type { Lineup } from './cases';

/** After recovery, how long the window stays open for probes and connections still under way. */
const TAIL_MS = 1000;

export interface FailoverTrial {
  /** The case of cases.ts the trial ran ("plain", "from-reality", …). */
  case: string;
  server: string;
  /** The failing server's kind: "vmess/tcp/none", or a modern server's lab kind. */
  protocol: string;
  /** What its relay carries: TCP, or UDP (QUIC). */
  carrier: 'tcp' | 'udp';
  /** The kind of the server that answered after the fault; null: none did. */
  to_kind: string | null;
  /** Fault → first answer through the proxy from another server's exit IP; null: none in time. */
  recovery_ms: number | null;
  /** Fault → the check that led to the switch started (stall or dial-failure detection). */
  detect_ms: number | null;
  trigger: string | null;
  /** That check's start → Auto's switch line. */
  check_ms: number | null;
  /** Switch line → first answer through the new server (core restart, a request's round trip). */
  reconnect_ms: number | null;
  /**
   * That check's start → the last answer from a server other than the current one: when the check
   * could have ended had it not waited for the current server's own probe.
   */
  others_answered_ms: number | null;
  to_server: string | null;
  to_subscription: string | null;
  /** Candidates whose recent answer (< 15 s) counted in that check until their probe returned. */
  answers_in_hand: string[];
  /** Auto switched to a server on its answer in hand, before that server's own probe returned. */
  switched_on_answer_in_hand: boolean;
  spent: Spent;
}

export interface ResetTrial extends FailoverTrial {
  /** Fault → the tunnel's first `dialRetrying` for the server (the core's second dial of a session). */
  dial_retrying_ms: number | null;
  /** Fault → the tunnel's first `dialFailure` for the server (in-flight connections reset count too). */
  dial_failure_ms: number | null;
  dial_failure_kind: string | null;
  /** New dials by the tunnel core after the fault: attempts and first dial → the core's failure line. */
  new_dials: { attempts: number; give_up_ms: number | null }[];
}

export interface OfflineTrial {
  server: string;
  offline_ms: number;
  switches: number;
  /** Auto's probe-result lines during the loss with recorded: true (must be 0) ... */
  recorded_probe_results: number;
  /** ... and of all, those with recorded: false. */
  unrecorded_probe_results: number;
  /** Measurements in the engine's history (every server) taken during the loss. */
  history_measurements: number;
  /** Auto's network-lost lines: when (ms after the loss began), attempt, announced wait. */
  network_lost: { at_ms: number; attempt: number; next_in_ms: number }[];
  /** When each check started, ms after the loss began. */
  checks_at_ms: number[];
  /** network-lost line → the next check's start, ms (what the back-off actually held). */
  observed_waits_ms: number[];
  /** Network back → first answer through the proxy; null: none within 10 s. */
  back_ms: number | null;
  back_through_same_server: boolean;
  spent: Spent;
}

export interface NeighbourTrial extends FailoverTrial {
  /** Fault → Auto's `stay` with own-subscription-silent (own silent, the neighbours answered). */
  own_silent_ms: number | null;
  /** own-subscription-silent → the widened check's start (spec: no later than 5 min). */
  widened_after_ms: number | null;
  /** Servers probed in neighbour phases. */
  neighbour_probes: number;
  on_neighbour: boolean;
}

export interface HealTrial {
  server: string;
  /** Fault → the fault lifted (the stall healed), ms. */
  healed_after_ms: number;
  /** Heal → first answer through the same server again; null: none within 10 s. */
  back_ms: number | null;
  /** Auto's switches in the window: every one is a false switch (the server never went away). */
  switches: number;
  /** Checks started, and preparations made, in the window. */
  checks: number;
  prepared: number;
  /** Servers probed because of the stall (prepare and check lines): the price of preparing. */
  extra_probes: number;
  spent: Spent;
}

const TIMEOUTS = { blackhole: 40_000, reset: 30_000, neighbour: 7 * 60_000 };

/**
 * A stall that heals before the threshold: the current server blackholed for `healMs` (3 s by
 * default, past half the 5 s threshold, so a preparation has started), then healthy again; the
 * window stays open until the threshold and a few seconds more have passed.
 */
export async function healTrial(kit: TrialKit, healMs: number, stallMs: number): Promise<HealTrial> {
  const start = await kit.settle();
  const { world } = kit;
  const from = Date.now();
  const before = await kit.counters();
  const fault = Date.now();
  await kit.setFault(start.lab.id, 'blackhole');
  await sleep(healMs - (Date.now() - fault));
  const healed = Date.now();
  await kit.lift(start.lab.id);
  const answer = await world.traffic.waitFor((r) => r.exitIp === start.lab.exitIp && r.startedAt >= healed, 10_000);
  await sleep(Math.max(0, fault + stallMs + 5000 - Date.now()));
  const to = Date.now();
  const after = await kit.counters();
  const decisions = kit.decisionsBetween(fault, to);
  const checks = decisions.filter((d): d is Extract<AutoDecision, { type: 'check' }> => d.type === 'check');
  const prepares = decisions.filter((d): d is Extract<AutoDecision, { type: 'prepare' }> => d.type === 'prepare');
  return {
    server: start.lab.id,
    healed_after_ms: healed - fault,
    back_ms: answer ? answer.endedAt - healed : null,
    switches: decisions.filter((d) => d.type === 'switch').length,
    checks: checks.length,
    prepared: prepares.length,
    extra_probes: [...checks, ...prepares].reduce((n, d) => n + d.probe.length, 0),
    spent: kit.spent(from, to, before, after),
  };
}

/** `blackhole` on the current server of A; `lineup` and `caseName` from cases.ts (A's plain servers by default). */
export async function blackholeTrial(kit: TrialKit, lineup?: Lineup, caseName = 'plain'): Promise<FailoverTrial> {
  const start = await kit.settle(0, lineup);
  const from = Date.now();
  const before = await kit.counters();
  const fault = Date.now();
  await kit.setFault(start.lab.id, 'blackhole');
  const answer = await kit.world.traffic.waitFor((r) => r.exitIp !== null && r.exitIp !== start.lab.exitIp, TIMEOUTS.blackhole);
  return failoverFigures(kit, caseName, start.lab.id, fault, from, before, answer);
}

/**
 * `reset` on the current server; Auto on the subscription at `subscriptionIndex` (A by default),
 * on A with `lineup` from cases.ts. On a UDP server the relay answers ICMP port unreachable.
 */
export async function resetTrial(kit: TrialKit, subscriptionIndex = 0, lineup?: Lineup, caseName = 'plain'): Promise<ResetTrial> {
  const start = await kit.settle(subscriptionIndex, lineup);
  const { world } = kit;
  const from = Date.now();
  const before = await kit.counters();
  const failuresBefore = world.dialFailures.length;
  const retriesBefore = world.dialRetries.length;
  const fault = Date.now();
  await kit.setFault(start.lab.id, 'reset');
  const answer = await world.traffic.waitFor((r) => r.exitIp !== null && r.exitIp !== start.lab.exitIp, TIMEOUTS.reset);
  const figures = await failoverFigures(kit, caseName, start.lab.id, fault, from, before, answer);
  const failure = world.dialFailures.slice(failuresBefore).find((f) => f.serverId === start.serverId);
  const retry = world.dialRetries.slice(retriesBefore).find((r) => r.serverId === start.serverId);
  const sessions = world.dials.sessions('tunnel', start.lab.relay, fault).filter((s) => !answer || s.firstDialAt <= answer.endedAt);
  return {
    ...figures,
    dial_retrying_ms: retry ? retry.at - fault : null,
    dial_failure_ms: failure ? failure.at - fault : null,
    dial_failure_kind: failure?.kind ?? null,
    new_dials: sessions.map((s) => ({ attempts: s.attempts, give_up_ms: s.failedAt === null ? null : s.failedAt - s.firstDialAt })),
  };
}

export async function neighbourTrial(kit: TrialKit): Promise<NeighbourTrial> {
  const start = await kit.settle();
  const { world } = kit;
  const own = world.servers.filter((s) => s.subscription === start.lab.subscription);
  const from = Date.now();
  const before = await kit.counters();
  // The others first, the current one last: the stall starts with the last fault.
  for (const server of own.filter((s) => s.id !== start.lab.id)) await kit.setFault(server.id, 'blackhole');
  const fault = Date.now();
  await kit.setFault(start.lab.id, 'blackhole');
  const ownExits = new Set(own.map((s) => s.exitIp));
  const answer = await world.traffic.waitFor((r) => r.exitIp !== null && !ownExits.has(r.exitIp), TIMEOUTS.neighbour);
  const figures = await failoverFigures(kit, 'plain', start.lab.id, fault, from, before, answer);
  const decisions = kit.decisionsBetween(fault, Date.now());
  const silent = decisions.find((d) => d.type === 'stay' && d.reason === 'own-subscription-silent');
  const widened = silent && decisions.find((d) => d.type === 'check' && d.trigger === 'widened' && d.at >= silent.at);
  return {
    ...figures,
    own_silent_ms: silent ? silent.at - fault : null,
    widened_after_ms: silent && widened ? widened.at - silent.at : null,
    neighbour_probes: decisions.reduce((n, d) => n + (d.type === 'check' && d.trigger === 'neighbour-sub' ? d.probe.length : 0), 0),
    on_neighbour: figures.to_subscription !== null && figures.to_subscription !== start.lab.subscription,
  };
}

export async function offlineTrial(kit: TrialKit, offlineMs: number): Promise<OfflineTrial> {
  const start = await kit.settle();
  const { world } = kit;
  const from = Date.now();
  const before = await kit.counters();
  const lost = Date.now();
  await kit.setNetwork('offline');
  await sleep(offlineMs - (Date.now() - lost));
  const back = Date.now();
  await kit.setNetwork('online');
  const answer = await world.traffic.waitFor((r) => r.exitIp !== null && r.endedAt >= back, 10_000);
  // A little longer: a check running across the return must not switch either.
  await sleep(5000);
  const to = Date.now();
  const after = await kit.counters();
  const duringLoss = kit.decisionsBetween(lost, back);
  const checks = duringLoss.filter((d): d is Extract<AutoDecision, { type: 'check' }> => d.type === 'check' && d.trigger !== 'neighbour-sub');
  const losses = duringLoss.filter((d): d is Extract<AutoDecision, { type: 'network-lost' }> => d.type === 'network-lost');
  const results = duringLoss.filter((d): d is Extract<AutoDecision, { type: 'probe-result' }> => d.type === 'probe-result');
  const snapshot = await world.snapshot();
  let history = 0;
  for (const server of snapshot.subscriptions.flatMap((s) => s.servers)) {
    history += (await world.engine.getHistory({ serverId: server.id })).filter((m) => m.at >= lost && m.at <= back).length;
  }
  return {
    server: start.lab.id,
    offline_ms: back - lost,
    switches: kit.decisionsBetween(lost, to).filter((d) => d.type === 'switch').length,
    recorded_probe_results: results.filter((r) => r.recorded).length,
    unrecorded_probe_results: results.filter((r) => !r.recorded).length,
    history_measurements: history,
    network_lost: losses.map((l) => ({ at_ms: l.at - lost, attempt: l.attempt, next_in_ms: l.next_in_ms })),
    checks_at_ms: checks.map((c) => c.at - lost),
    observed_waits_ms: losses.flatMap((l) => {
      const next = checks.find((c) => c.at > l.at);
      return next ? [next.at - l.at] : [];
    }),
    back_ms: answer ? answer.endedAt - back : null,
    back_through_same_server: answer?.exitIp === start.lab.exitIp && snapshot.connection.serverId === start.serverId,
    spent: kit.spent(from, to, before, after),
  };
}

/** Recovery and its parts, read from the answer, Auto's decisions and the window's counters. */
async function failoverFigures(
  kit: TrialKit,
  caseName: string,
  server: string,
  fault: number,
  from: number,
  before: Awaited<ReturnType<TrialKit['counters']>>,
  answer: TrafficRequest | null,
): Promise<FailoverTrial> {
  await sleep(TAIL_MS);
  const to = Date.now();
  const after = await kit.counters();
  const decisions = kit.decisionsBetween(fault, answer?.endedAt ?? to);
  const switched = [...decisions].reverse().find((d): d is Extract<AutoDecision, { type: 'switch' }> => d.type === 'switch');
  // The check that led to the switch: the last one of the own phase started before it.
  const check = [...decisions]
    .reverse()
    .find((d): d is Extract<AutoDecision, { type: 'check' }> => d.type === 'check' && d.trigger !== 'neighbour-sub' && (!switched || d.at <= switched.at));
  const firstCheck = decisions.find((d): d is Extract<AutoDecision, { type: 'check' }> => d.type === 'check' && d.trigger !== 'neighbour-sub');
  const landed = answer?.exitIp ? kit.world.labByExitIp(answer.exitIp) : undefined;
  const onAnswerInHand =
    !!switched &&
    !!check?.inHand?.some((a) => a.id === switched.to) &&
    !decisions.some((d) => d.type === 'probe-result' && d.id === switched.to && d.at >= check.at && d.at <= switched.at);
  const othersAnswered = check
    ? decisions
        .filter((d): d is Extract<AutoDecision, { type: 'probe-result' }> => d.type === 'probe-result')
        .filter((r) => r.delay !== null && r.id !== check.probe[0] && check.probe.includes(r.id) && r.at >= check.at && (!switched || r.at <= switched.at))
        .reduce<number | null>((last, r) => Math.max(last ?? 0, r.at - check.at), null)
    : null;
  return {
    case: caseName,
    server,
    protocol: kit.world.kindOfLab(server),
    carrier: kit.world.carrierOfLab(server),
    to_kind: landed ? kit.world.kindOfLab(landed.id) : null,
    recovery_ms: answer ? answer.endedAt - fault : null,
    detect_ms: firstCheck ? firstCheck.at - fault : null,
    trigger: firstCheck?.trigger ?? null,
    check_ms: check && switched ? switched.at - check.at : null,
    reconnect_ms: switched && answer ? answer.endedAt - switched.at : null,
    others_answered_ms: othersAnswered,
    to_server: landed?.id ?? null,
    to_subscription: landed?.subscription ?? null,
    answers_in_hand: (check?.inHand ?? []).map((a) => kit.world.labOf(a.id).id),
    switched_on_answer_in_hand: onAnswerInHand,
    spent: kit.spent(from, to, before, after),
  };
}
