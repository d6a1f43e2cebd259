/**
 * How a check ends (spec/auto.md "How a check runs", "When the whole subscription is silent",
 * "Return"):
 * - the current server answered → stay, even if another answered faster; but if the return
 *   candidate has now answered twice in a row, go back to it;
 * - the current one is silent and others answered → switch to the answering server with the best
 *   switch score S';
 * - nobody answered → ask the 2 best of the nearest subscription above and below:
 *   - they answer too → the own subscription is down: stay, and the next check widens to 30;
 *     when that widened check finds it silent again, move to the best answering neighbour server;
 *   - they are silent too → the network is gone: stay, record nothing, retry after T_k.
 * - an own-subscription check (while on a neighbour's server) returns once an own server has
 *   answered twice in a row, and after 5 silent ones in a row pauses for 15 min.
 *
 * A check need not wait out every probe once the current server is known silent: its probe
 * failed, or — in a check started by a sign of failure — it has not answered within a few of its
 * usual delays (AUTO_RULES.silentAfter*) while another did. The check then ends as soon as no
 * server still probing could beat the best switch score of those that answered (S' only grows
 * with the delay); the late answers are recorded when they come.
 *
 * A server whose transfer test says it freezes counts as not answering (./transfer.ts): its ping
 * answer neither keeps it nor makes it a switch target nor counts towards a return.
 *
 * A check's probe results are written to history only once it is known the network was there
 * (something answered); until then its lines are held, and they are logged together when it ends,
 * each with the time its answer came and whether it was recorded.
 *
 * This file takes the results in and decides the conclusion; how answers count and rank is
 * ./check-answers.ts, how a check is closed (logged, recorded, the cooldown) ./check-finish.ts.
 */
import type { AutoDecision } from '../../../shared/domain/auto';
import type { ServerId } from '../../../shared/domain/server';
import type { TransferVerdict } from '../../../shared/domain/transfer';
import { AUTO_RULES, networkLossBackoffMs } from './constants';
import { answered, answerOf, bestBySwitchScore, counts, pingsAnswered, targetRank, withStreaks } from './check-answers';
import { finish, finishWithSwitch } from './check-finish';
import { activeHold } from './limits';
import { countedMeasurements, upperMedian } from './score';
import { log, mayTake, queueOf, type StepContext } from './state';
import { freshTransfer, passesGate, transferMark, transferMarkOf } from './transfer';
import type { AutoState, CheckInFlight, ProbeAnswer } from './types';
import { neighboursOf, subscriptionOf } from './world';

export function onProbeResult(
  state: AutoState,
  ctx: StepContext,
  event: { checkId: number; serverId: ServerId; delayMs: number | null; error?: CheckInFlight['results'][string]['error'] },
): AutoState {
  const check = state.check;
  if (!check || check.id !== event.checkId || !check.pending.includes(event.serverId)) return recordTrailing(state, ctx, event);
  if (check.results[event.serverId]) return state;
  const transfer = event.delayMs === null ? undefined : transferMarkOf(ctx.world, event.serverId, ctx.now);
  const passed = event.delayMs === null ? undefined : gatePassedInHand(ctx, check, event.serverId);
  const answer: ProbeAnswer = {
    at: ctx.now,
    delayMs: event.delayMs,
    ...(event.error && event.delayMs === null ? { error: event.error } : {}),
    ...(transfer ? { transfer } : {}),
    ...(passed !== undefined ? { passed } : {}),
  };
  // A ping answer that a transfer test follows counts once that test has said how the traffic went.
  const awaitTransfer = (check.transferOf?.includes(event.serverId) ?? false) && event.delayMs !== null;
  const updated: CheckInFlight = {
    ...check,
    pending: awaitTransfer ? check.pending : check.pending.filter((id) => id !== event.serverId),
    results: { ...check.results, [event.serverId]: answer },
    log: awaitTransfer ? check.log : [...check.log, { kind: 'result', id: event.serverId }],
  };
  return continueCheck({ ...state, check: updated }, ctx, updated);
}

/** The transfer test that followed a ping answer of this check: the answer now counts, marked with its verdict. */
export function onTransferResult(state: AutoState, ctx: StepContext, event: { checkId: number; serverId: ServerId; verdict: TransferVerdict | null }): AutoState {
  const check = state.check;
  const answer = check?.results[event.serverId];
  if (!check || check.id !== event.checkId || !check.transferOf?.includes(event.serverId) || !answer || !check.pending.includes(event.serverId)) return state;
  const { transfer: _before, passed: _unknown, ...rest } = answer;
  const mark = transferMark(event.verdict);
  const passed = check.gate ? { passed: passesGate(event.verdict, check.gate) } : {};
  const updated: CheckInFlight = {
    ...check,
    pending: check.pending.filter((id) => id !== event.serverId),
    results: { ...check.results, [event.serverId]: { ...rest, ...(mark ? { transfer: mark } : {}), ...passed } },
    log: [...check.log, { kind: 'result', id: event.serverId }],
  };
  return continueCheck({ ...state, check: updated }, ctx, updated);
}

/**
 * In a freeze check, whether a server's traffic passes as far as is known when its ping answers:
 * the current server by its latest transfer, a candidate by a fresh result (undefined: its
 * transfer test follows, and decides).
 */
function gatePassedInHand(ctx: StepContext, check: CheckInFlight, id: ServerId): boolean | undefined {
  if (!check.gate) return undefined;
  if (id === check.current) return passesGate(ctx.world.transferVerdict?.(id), check.gate);
  if (check.transferOf?.includes(id)) return undefined;
  return passesGate(freshTransfer(ctx.world, id, ctx.now)?.verdict, check.gate);
}

function continueCheck(state: AutoState, ctx: StepContext, check: CheckInFlight): AutoState {
  // A prepared check decides nothing before it starts: its answers wait for the threshold.
  if (check.phase === 'prepared') return state;
  if (check.pending.length > 0) return concludeEarly(state, ctx);
  return check.phase === 'own' ? concludeOwnPhase(state, ctx, check) : concludeNeighbourPhase(state, ctx, check);
}

const FAILURE_TRIGGERS: ReadonlySet<string> = new Set(['stall', 'dial-failure', 'no-receive-30s']);

/**
 * When a failure-triggered check may take its current server as silent (null: only at its
 * timeout), counted from when its probe went out. After a dial failure at once: the core failing
 * to connect already said the server is gone, and the probe would only repeat the core's own
 * retries (about 2 s for WebSocket servers).
 */
export function silentDeadline(state: AutoState, ctx: StepContext, check: CheckInFlight): number | null {
  if (check.phase !== 'own' || !FAILURE_TRIGGERS.has(check.trigger) || !check.pending.includes(check.current)) return null;
  if (check.trigger === 'dial-failure') return check.probedAt;
  const usual = countedMeasurements(ctx.world.measurements(check.current), ctx.now, 'url')
    .flatMap((m) => (m.delayMs === null ? [] : [m.delayMs]))
    .sort((a, b) => a - b);
  if (usual.length === 0) return null;
  const grace = Math.min(state.config.probeTimeoutMs, Math.max(AUTO_RULES.silentAfterMinMs, AUTO_RULES.silentAfterDelays * upperMedian(usual)));
  return check.probedAt + grace;
}

/**
 * Ends a check before all its probes returned once the current server is known silent (its probe
 * failed, or it missed its deadline in a failure-triggered check), another server answered, and
 * no server still probing could beat the best switch score of those that answered.
 */
export function concludeEarly(state: AutoState, ctx: StepContext): AutoState {
  const check = state.check;
  if (!check || check.phase !== 'own' || check.kind === 'own-sub-retry' || check.pending.length === 0) return state;
  const own = check.results[check.current];
  if (own ? answered(check, check.current) : !pastSilentDeadline(state, ctx, check)) return state;
  const others = check.ownIds.filter((id) => id !== check.current && answered(check, id));
  // Answers in hand count once this check has an answer of its own: a fault that took the whole
  // subscription (or the user's network) with the current server must reach the neighbours'
  // question, not a switch to a server that answered seconds before.
  if (!others.some((id) => counts(check, check.results[id]))) return state;
  const best = Math.min(...others.map((id) => targetRank(ctx, check, id, answerOf(check, id)!.delayMs!)));
  const elapsed = ctx.now - check.probedAt;
  const stillProbing = check.pending.filter((id) => id !== check.current);
  // A server whose answer is in hand has answered: its probe still running cannot beat the best.
  // One whose ping answered and whose transfer test runs competes with the delay it answered in.
  const contenders = stillProbing.filter((id) => !check.inHand?.[id]);
  if (contenders.some((id) => targetRank(ctx, check, id, check.results[id]?.delayMs ?? elapsed) < best)) return state;
  // Nothing is invented for a current server that missed its deadline: its probe runs on to its
  // timeout, and what it returns is recorded then (recordTrailing).
  const updated: CheckInFlight = { ...check, pending: [] };
  const late = own ? stillProbing : [check.current, ...stillProbing];
  const trailing = late.length > 0 ? { checkId: check.id, current: check.current, pending: late } : null;
  return concludeWithAnswers({ ...state, check: updated, trailing }, ctx, updated);
}

function pastSilentDeadline(state: AutoState, ctx: StepContext, check: CheckInFlight): boolean {
  const deadline = silentDeadline(state, ctx, check);
  return deadline !== null && ctx.now >= deadline;
}

/**
 * A late answer of a check that ended early: recorded like the check's own (the network was
 * there). The server the check was about answering late is an answer like any other: it is the
 * server to return to, not a failure.
 */
function recordTrailing(
  state: AutoState,
  ctx: StepContext,
  event: { checkId: number; serverId: ServerId; delayMs: number | null; error?: CheckInFlight['results'][string]['error'] },
): AutoState {
  const trailing = state.trailing;
  if (!trailing || trailing.checkId !== event.checkId || !trailing.pending.includes(event.serverId)) return state;
  if (event.delayMs === null && state.networkLoss) {
    // The check found the network gone: a late failure is the network's, never the server's.
    log(ctx, { type: 'probe-result', at: ctx.now, id: event.serverId, delay: null, recorded: false });
    const pending = trailing.pending.filter((id) => id !== event.serverId);
    return { ...state, trailing: pending.length > 0 ? { ...trailing, pending } : null };
  }
  const measurement = { at: ctx.now, method: 'url' as const, delayMs: event.delayMs, ...(event.error && event.delayMs === null ? { error: event.error } : {}) };
  const transfer = event.delayMs === null ? undefined : transferMarkOf(ctx.world, event.serverId, ctx.now);
  log(ctx, { type: 'probe-result', at: ctx.now, id: event.serverId, delay: event.delayMs, recorded: true, ...(transfer ? { transfer } : {}) });
  ctx.out.push({ kind: 'record', results: [{ serverId: event.serverId, measurement }] });
  const pending = trailing.pending.filter((id) => id !== event.serverId);
  const next = { ...state, trailing: pending.length > 0 ? { ...trailing, pending } : null };
  const cameBack = event.serverId === trailing.current && event.delayMs !== null && state.current !== event.serverId;
  if (cameBack && subscriptionOf(ctx.world, event.serverId)?.id === state.subscriptionId && mayTake(state, ctx, event.serverId)) {
    return { ...next, returnCandidate: event.serverId };
  }
  return next;
}

export function concludeOwnPhase(state: AutoState, ctx: StepContext, check: CheckInFlight): AutoState {
  if (check.kind === 'own-sub-retry') return concludeOwnRetry(state, ctx, check);
  const answers = check.ownIds.filter((id) => answered(check, id));
  if (answers.length > 0) return concludeWithAnswers(state, ctx, check);
  if (check.gate && !check.widenedWithin) {
    const widened = widenWithin(state, ctx, check);
    if (widened) return widened;
  }
  const neighbourIds = neighbourProbeSet(state, ctx, check.current);
  if (neighbourIds.length === 0) return check.gate && pingsAnswered(check) ? concludeNothingPasses(state, ctx, check) : concludeNetworkLost(state, ctx, check);
  const decision: AutoDecision = { type: 'check', at: ctx.now, trigger: 'neighbour-sub', probe: neighbourIds };
  const transferAfter = check.gate ? neighbourIds.filter((id) => freshTransfer(ctx.world, id, ctx.now) === null) : [];
  ctx.out.push({ kind: 'probe', checkId: check.id, ids: neighbourIds, timeoutMs: state.config.probeTimeoutMs, purpose: 'neighbours', ...(transferAfter.length > 0 ? { transferAfter } : {}) });
  const next: CheckInFlight = {
    ...check,
    phase: 'neighbours',
    neighbourIds,
    pending: neighbourIds,
    log: [...check.log, { kind: 'line', decision }],
    ...(transferAfter.length > 0 ? { transferOf: [...(check.transferOf ?? []), ...transferAfter] } : {}),
  };
  return { ...state, check: next };
}

/**
 * A freeze check in which no candidate passed goes on, as a check does when the subscription is
 * silent, to the rest of it: up to 30 servers in all, in queue order, their pings followed by
 * transfer tests (a `check` line with trigger `widened`). Null when nothing is left to probe.
 */
function widenWithin(state: AutoState, ctx: StepContext, check: CheckInFlight): AutoState | null {
  const home = subscriptionOf(ctx.world, check.current)?.id ?? state.subscriptionId;
  const more = queueOf(state, ctx, home)
    .filter((id) => !check.ownIds.includes(id))
    .slice(0, Math.max(0, AUTO_RULES.widenedTotal - check.ownIds.length));
  if (more.length === 0) return null;
  const transferAfter = more.filter((id) => freshTransfer(ctx.world, id, ctx.now) === null);
  const decision: AutoDecision = { type: 'check', at: ctx.now, trigger: 'widened', probe: more };
  ctx.out.push({ kind: 'probe', checkId: check.id, ids: more, timeoutMs: state.config.probeTimeoutMs, purpose: 'widened', ...(transferAfter.length > 0 ? { transferAfter } : {}) });
  const next: CheckInFlight = {
    ...check,
    widenedWithin: true,
    ownIds: [...check.ownIds, ...more],
    pending: more,
    probedAt: ctx.now,
    log: [...check.log, { kind: 'line', decision }],
    transferOf: [...(check.transferOf ?? []), ...transferAfter],
  };
  return { ...state, check: next };
}

/**
 * A freeze check found no server whose traffic passes, neighbours included: the user stays (a
 * frozen server still carries the first 16 KB of each connection; nothing else carries more), the
 * pings are recorded, and the next freeze of this server starts a check only after the quiet
 * (AUTO_RULES.nothingPassesQuietMs), so a country that freezes everything is not re-tested each minute.
 */
function concludeNothingPasses(state: AutoState, ctx: StepContext, check: CheckInFlight): AutoState {
  const stay: AutoDecision = { type: 'stay', at: ctx.now, id: check.current, reason: 'nothing-passes' };
  const next = finish({ ...withStreaks(state, check), networkLoss: null }, ctx, check, true, false, [stay]);
  return { ...next, freezeQuietUntil: ctx.now + AUTO_RULES.nothingPassesQuietMs };
}

function concludeNeighbourPhase(state: AutoState, ctx: StepContext, check: CheckInFlight): AutoState {
  const answers = check.neighbourIds.filter((id) => answered(check, id));
  if (answers.length === 0) return check.gate && pingsAnswered(check) ? concludeNothingPasses(state, ctx, check) : concludeNetworkLost(state, ctx, check);
  const base = { ...withStreaks(state, check), networkLoss: null };
  // A freeze check has already gone through its own subscription: a neighbour that passes is taken now.
  if (check.kind === 'widened' || check.gate) {
    return finishWithSwitch(base, ctx, check, bestBySwitchScore(ctx, check, answers), 'neighbour-subscription');
  }
  const stay: AutoDecision = { type: 'stay', at: ctx.now, id: check.current, reason: 'own-subscription-silent' };
  return { ...finish(base, ctx, check, true, false, [stay]), widen: { since: ctx.now } };
}

function concludeWithAnswers(state: AutoState, ctx: StepContext, check: CheckInFlight): AutoState {
  const base = { ...withStreaks(state, check), networkLoss: null, widen: null };
  if (!answered(check, check.current)) {
    const others = check.ownIds.filter((id) => id !== check.current && answered(check, id));
    return finishWithSwitch(base, ctx, check, bestBySwitchScore(ctx, check, others), 'current-silent');
  }
  const candidate = base.returnCandidate;
  if (candidate !== null && candidate !== check.current && answered(check, candidate)) {
    if ((base.answerStreak[candidate] ?? 0) >= AUTO_RULES.returnAnswers) return finishWithSwitch(base, ctx, check, candidate, 'return');
    return finish(base, ctx, check, true, false, [returnPending(ctx, check, candidate, base.answerStreak[candidate] ?? 0)]);
  }
  return finish(base, ctx, check, true, false, [{ type: 'stay', at: ctx.now, id: check.current, reason: 'current-answered' }]);
}

/** While on a neighbour's server: is Auto's own subscription back? */
function concludeOwnRetry(state: AutoState, ctx: StepContext, check: CheckInFlight): AutoState {
  if (!check.ownIds.some((id) => answered(check, id))) {
    // Not even the server carrying the traffic answered: the network is the likelier culprit, so
    // nothing is recorded and the own subscription is not blamed for it.
    return finish(state, ctx, check, false, false, [{ type: 'stay', at: ctx.now, id: check.current, reason: 'nobody-answered' }]);
  }
  const base = { ...withStreaks(state, check), networkLoss: null };
  const own = check.ownIds.filter((id) => id !== check.current && subscriptionOf(ctx.world, id)?.id === state.subscriptionId);
  const ownAnswers = own.filter((id) => answered(check, id));
  const away = base.away ?? { failures: 0, nextRetryAt: ctx.now + AUTO_RULES.ownRetryIntervalMs, lastRetryAt: ctx.now };
  if (ownAnswers.length === 0) {
    const failures = away.failures + 1;
    const lines: AutoDecision[] = [{ type: 'stay', at: ctx.now, id: check.current, reason: 'own-subscription-silent' }];
    if (failures < AUTO_RULES.ownRetryFailures) return finish({ ...base, away: { ...away, failures } }, ctx, check, true, false, lines);
    const until = ctx.now + AUTO_RULES.ownRetryPauseMs;
    lines.push({ type: 'pause', at: ctx.now, until, reason: 'own-sub-retry' });
    return finish({ ...base, away: { ...away, failures: 0, nextRetryAt: until } }, ctx, check, true, false, lines);
  }
  const reset = { ...base, away: { ...away, failures: 0 } };
  if (!answered(check, check.current)) {
    return finishWithSwitch(reset, ctx, check, bestBySwitchScore(ctx, check, ownAnswers), 'current-silent');
  }
  const ready = ownAnswers.filter((id) => (reset.answerStreak[id] ?? 0) >= AUTO_RULES.returnAnswers);
  if (ready.length > 0) {
    const target = reset.returnCandidate !== null && ready.includes(reset.returnCandidate) ? reset.returnCandidate : bestBySwitchScore(ctx, check, ready);
    return finishWithSwitch(reset, ctx, check, target, 'return');
  }
  const leader = reset.returnCandidate !== null && ownAnswers.includes(reset.returnCandidate) ? reset.returnCandidate : ownAnswers[0]!;
  return finish(reset, ctx, check, true, false, [returnPending(ctx, check, leader, reset.answerStreak[leader] ?? 0)]);
}

function concludeNetworkLost(state: AutoState, ctx: StepContext, check: CheckInFlight): AutoState {
  const attempt = (state.networkLoss?.attempt ?? 0) + 1;
  const nextInMs = networkLossBackoffMs(attempt);
  const lost: AutoDecision = { type: 'network-lost', at: ctx.now, attempt, next_in_ms: nextInMs };
  const next = finish({ ...state, networkLoss: { attempt, until: ctx.now + nextInMs } }, ctx, check, false, false, [lost]);
  return { ...next, announcedHold: activeHold(next, ctx.now) };
}

/** The 2 best of the nearest subscription above and below the current server's. */
function neighbourProbeSet(state: AutoState, ctx: StepContext, current: ServerId): ServerId[] {
  const home = subscriptionOf(ctx.world, current)?.id ?? state.subscriptionId;
  if (home === null) return [];
  return neighboursOf(ctx.world, home).flatMap((s) => queueOf(state, ctx, s.id).slice(0, AUTO_RULES.neighbourBest));
}

function returnPending(ctx: StepContext, check: CheckInFlight, candidate: ServerId, answers: number): AutoDecision {
  // The extra fields say which server is on its way back and how far: "fi answered 1 of 2".
  const extra = { candidate, answers, needed: AUTO_RULES.returnAnswers };
  return { type: 'stay', at: ctx.now, id: check.current, reason: 'return-pending', ...extra };
}
