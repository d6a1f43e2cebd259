/**
 * When a check starts and what it probes (spec/auto.md "When a check starts", "How a check runs").
 *
 * A check may start only while Auto is on, the VPN is connected, the OS reports a network, and no
 * other check is running. The reasons, strongest first:
 * - traffic: a stall (5 s sending without receiving) or 30 s without receiving although something
 *   was sent; a dial failure of the current server (an event);
 * - while on a neighbour subscription's server: the own-subscription check, once a minute;
 * - the scheduled check, 5 min after the last one.
 * The time-based ones also need traffic since their last run: an idle device is never probed.
 * A due check held by a cooldown, a network-loss pause or the switch limit logs one `pause` line
 * per hold (none when the hold was already announced by a `network-lost` or `rate-limited` line)
 * and starts when the hold ends if it is still due. A held dial failure is dropped: if the server
 * is really gone the stall trigger follows. A user's "check now" is never held.
 *
 * While the own subscription is known silent (after the neighbours answered), every check is the
 * widened one, whatever woke it. That is what makes it come "no later than 5 min after": the last
 * scheduled check was no later than the silent one, so the next is due within 5 min of it.
 */
import type { CheckTrigger } from '../../../shared/domain/auto';
import type { ProbeFailure } from '../../../shared/domain/measurement';
import type { ServerId } from '../../../shared/domain/server';
import { concludeEarly, concludeOwnPhase, silentDeadline } from './check-end';
import { dissolvePrepared } from './check-finish';
import { AUTO_RULES } from './constants';
import { activeHold, sameHold } from './limits';
import { homeOf, log, mayTake, queueOf, type StepContext, uniqueIds } from './state';
import { activeSince, restartSilence, trafficTrigger } from './traffic';
import { checksTransfer, freezesNow, freshTransfer } from './transfer';
import { answersInHand } from './in-hand';
import type { AutoState, CheckKind, FrozenCurrent, ProbeAnswer } from './types';
import { watchWakeAt } from './watch';

export interface DueCheck {
  trigger: CheckTrigger;
  kind: CheckKind;
  /** Starting it counts as the scheduled check (resets the 5-minute clock). */
  scheduled?: boolean;
  /** A dial failure's check: how the dial failed, when the core said. */
  failure?: ProbeFailure;
  /** A freeze check: what the current server's transfer test saw. */
  freeze?: FrozenCurrent;
}

/** Auto is watching: on, connected, with a network, and a server to watch. */
export function watching(state: AutoState): boolean {
  return state.subscriptionId !== null && state.connected && state.current !== null && state.network === 'up';
}

/** The time-based and traffic-based check that is due now, if any (holds not considered). */
export function dueCheck(state: AutoState, now: number): DueCheck | null {
  const widened = state.widen !== null;
  const asWidened = (trigger: CheckTrigger, extra: Partial<DueCheck> = {}): DueCheck =>
    widened ? { trigger: 'widened', kind: 'widened', ...extra } : { trigger, kind: 'ordinary', ...extra };

  const traffic = trafficTrigger(state.traffic, now, state.config.stallThresholdMs);
  if (traffic) return asWidened(traffic);
  const frozen = freezeDue(state, now);
  if (frozen) return { trigger: 'freeze', kind: widened ? 'widened' : 'ordinary', freeze: frozen };
  const away = state.away;
  if (away && now >= away.nextRetryAt && activeSince(state.traffic, away.lastRetryAt)) {
    return { trigger: 'own-sub-retry', kind: 'own-sub-retry' };
  }
  if (now >= state.lastScheduledAt + AUTO_RULES.scheduledIntervalMs && activeSince(state.traffic, state.lastScheduledAt)) {
    return widened ? { trigger: 'widened', kind: 'widened', scheduled: true } : { trigger: 'scheduled', kind: 'scheduled', scheduled: true };
  }
  return null;
}

/**
 * The current server's transfer test froze (or was throttled) and no check has answered it yet:
 * due at once, as a stall is; after a freeze check that found nothing passing, not before
 * `freezeQuietUntil`.
 */
function freezeDue(state: AutoState, now: number): FrozenCurrent | null {
  const frozen = state.frozen;
  if (!frozen || frozen.serverId !== state.current) return null;
  if (state.freezeQuietUntil !== null && now < state.freezeQuietUntil) return null;
  return frozen;
}

/** A check asked for by an event (a dial failure, the user) rather than by time or traffic. */
export function requestedCheck(state: AutoState, trigger: 'dial-failure' | 'user', failure?: ProbeFailure): DueCheck {
  if (state.widen !== null) return { trigger: trigger === 'user' ? 'user' : 'widened', kind: 'widened' };
  return { trigger, kind: 'ordinary', ...(failure ? { failure } : {}) };
}

/**
 * Starts `requested`, or whatever check is due, unless something holds it; a prepared check
 * starts from what its probes already brought. With nothing due, a stall of half the threshold
 * prepares the check it may become.
 */
export function maybeStartCheck(state: AutoState, ctx: StepContext, requested?: DueCheck): AutoState {
  if (!watching(state) || (state.check && state.check.phase !== 'prepared')) return state;
  const due = requested ?? dueCheck(state, ctx.now);
  if (!due) return state.check ? state : maybePrepare(state, ctx);
  const hold = due.trigger === 'user' ? null : activeHold(state, ctx.now);
  if (hold) {
    if (sameHold(hold, state.announcedHold)) return state;
    log(ctx, { type: 'pause', at: ctx.now, until: hold.until, reason: hold.reason });
    return { ...state, announcedHold: hold };
  }
  if (!state.check) return startCheck(state, ctx, due);
  // An own-subscription check, or a freeze check (whose candidates need transfer tests), probes
  // otherwise than the stall's: the preparation gives way.
  if (due.kind === 'own-sub-retry' || due.freeze) return startCheck(dissolvePrepared(state, ctx), ctx, due);
  return startPrepared(state, ctx, due);
}

/**
 * A stall that has lasted half the threshold (and nothing holding a check): the servers the
 * stall's check would probe are probed now, as ordinary URL tests. Nothing is decided and no
 * `check` line is written: the check starts at the threshold (spec/auto.md fixes when), and if the
 * stall heals first it dissolves (check-end.ts `dissolvePrepared`) and changes nothing.
 */
function maybePrepare(state: AutoState, ctx: StepContext): AutoState {
  const half = state.config.stallThresholdMs * AUTO_RULES.prepareShare;
  const { lastSendAt } = state.traffic;
  // Only a stall still being fed: a sparse sender's lone request is trigger 3's, not a stall's.
  const sending = lastSendAt !== null && ctx.now - lastSendAt <= AUTO_RULES.prepareRecentSendMs;
  if (!sending || trafficTrigger(state.traffic, ctx.now, half) !== 'stall' || activeHold(state, ctx.now)) return state;
  const kind: CheckKind = state.widen !== null ? 'widened' : 'ordinary';
  const ids = probeSet(state, ctx, kind);
  log(ctx, { type: 'prepare', at: ctx.now, probe: ids });
  return sendProbes(state, ctx, { trigger: kind === 'widened' ? 'widened' : 'stall', kind }, ids, 'prepared');
}

/** A prepared check becomes the check that is due: it starts now, with the answers its probes already brought. */
function startPrepared(state: AutoState, ctx: StepContext, due: DueCheck): AutoState {
  const prepared = state.check!;
  log(ctx, { type: 'check', at: ctx.now, trigger: due.trigger, probe: prepared.ownIds });
  // Its probes are the stall's (ordinary, or widened while the own subscription is known silent).
  const check = { ...prepared, phase: 'own' as const, trigger: due.trigger, startedAt: ctx.now };
  const next = {
    ...state,
    check,
    lastScheduledAt: due.scheduled ? ctx.now : state.lastScheduledAt,
    traffic: restartSilence(state.traffic),
  };
  return check.pending.length === 0 ? concludeOwnPhase(next, ctx, check) : concludeEarly(next, ctx);
}

export function startCheck(state: AutoState, ctx: StepContext, due: DueCheck): AutoState {
  const ids = probeSet(state, ctx, due.kind);
  // After a dial failure the current server is silent at once: recent answers spare the wait for
  // slower candidates once the first one answers (check-end.ts concludeEarly). How the dial
  // failed is said on the check line; it decides nothing: a reset comes from the far end, but it
  // cannot tell one server's fault from the whole subscription's or every server's, which only
  // the neighbours' question can (spec/auto.md).
  const inHand = due.trigger === 'dial-failure' && due.kind === 'ordinary' ? answersInHand(ctx, ids.slice(1)) : {};
  const held = Object.entries(inHand).map(([id, a]) => ({ id, delay: a.delayMs!, ageMs: ctx.now - a.at }));
  const failure = due.trigger === 'dial-failure' ? due.failure : undefined;
  const transfer = due.freeze ? { server: due.freeze.serverId, verdict: due.freeze.verdict, bytes: due.freeze.bytes } : undefined;
  log(ctx, {
    type: 'check',
    at: ctx.now,
    trigger: due.trigger,
    probe: ids,
    ...(held.length > 0 ? { inHand: held } : {}),
    ...(failure ? { failure } : {}),
    ...(transfer ? { transfer } : {}),
  });
  // The freeze is answered by this check: the next one needs a new freeze.
  const next = due.freeze ? { ...state, frozen: null } : state;
  return sendProbes(next, ctx, due, ids, 'own', inHand);
}

/**
 * The probed servers whose ping answer is followed by a transfer test: in a check started by the
 * user's traffic, the current server; in a freeze check, every candidate without a fresh result
 * (one younger than 15 s answers already); in any check, a return candidate whose latest transfer
 * froze (its pings do not count until a transfer passes, and this is how one comes to pass).
 */
export function transferAfterOf(state: AutoState, ctx: StepContext, due: Pick<DueCheck, 'trigger' | 'freeze'>, ids: readonly ServerId[]): ServerId[] {
  const current = state.current!;
  const out: ServerId[] = [];
  if (checksTransfer(due.trigger)) out.push(current);
  if (due.freeze) out.push(...ids.filter((id) => id !== current && freshTransfer(ctx.world, id, ctx.now) === null));
  const candidate = state.returnCandidate;
  if (candidate !== null && candidate !== current && ids.includes(candidate) && freezesNow(ctx.world, candidate) && freshTransfer(ctx.world, candidate, ctx.now) === null) {
    out.push(candidate);
  }
  return uniqueIds(out);
}

function sendProbes(state: AutoState, ctx: StepContext, due: DueCheck, ids: ServerId[], phase: 'own' | 'prepared', inHand: Record<ServerId, ProbeAnswer> = {}): AutoState {
  const current = state.current!;
  const id = state.nextCheckId;
  const transferOf = transferAfterOf(state, ctx, due, ids);
  const gate = due.freeze?.verdict;
  ctx.out.push({ kind: 'probe', checkId: id, ids, timeoutMs: state.config.probeTimeoutMs, purpose: due.kind, ...(transferOf.length > 0 ? { transferAfter: transferOf } : {}) });
  const started = phase === 'own';
  const away =
    due.kind === 'own-sub-retry' && state.away
      ? { ...state.away, lastRetryAt: ctx.now, nextRetryAt: ctx.now + AUTO_RULES.ownRetryIntervalMs }
      : state.away;
  return {
    ...state,
    nextCheckId: id + 1,
    check: {
      id,
      trigger: due.trigger,
      kind: due.kind,
      phase,
      startedAt: ctx.now,
      probedAt: ctx.now,
      current,
      ownIds: ids,
      neighbourIds: [],
      pending: ids,
      results: {},
      ...(Object.keys(inHand).length > 0 ? { inHand } : {}),
      log: [],
      ...(transferOf.length > 0 ? { transferOf } : {}),
      ...(gate ? { gate } : {}),
    },
    away,
    lastScheduledAt: started && due.scheduled ? ctx.now : state.lastScheduledAt,
    // A prepared check lets the stall run on to the threshold.
    traffic: started ? restartSilence(state.traffic) : state.traffic,
  };
}

/**
 * What a check probes, the current server always first, then in queue order:
 * - ordinary: up to 9 best of the current server's subscription;
 * - scheduled: the return candidate and the two best;
 * - widened: up to 30 servers in all;
 * - own-subscription: the return candidate and the three best of Auto's own subscription.
 */
export function probeSet(state: AutoState, ctx: StepContext, kind: CheckKind): ServerId[] {
  const current = state.current!;
  const candidate = state.returnCandidate !== null && mayTake(state, ctx, state.returnCandidate) ? [state.returnCandidate] : [];
  const queueWithout = (subscription: string | null, taken: ServerId[]) =>
    queueOf(state, ctx, subscription).filter((id) => !taken.includes(id));
  switch (kind) {
    case 'ordinary':
      return [current, ...queueWithout(homeOf(state, ctx), [current]).slice(0, AUTO_RULES.checkBest)];
    case 'widened':
      return [current, ...queueWithout(homeOf(state, ctx), [current]).slice(0, AUTO_RULES.widenedTotal - 1)];
    case 'scheduled': {
      const head = uniqueIds([current, ...candidate]);
      return [...head, ...queueWithout(homeOf(state, ctx), head).slice(0, AUTO_RULES.scheduledBest)];
    }
    case 'own-sub-retry': {
      const head = uniqueIds([current, ...candidate]);
      return [...head, ...queueWithout(state.subscriptionId, head).slice(0, AUTO_RULES.ownRetryBest)];
    }
  }
}

/**
 * The earliest moment a time-based check may become due, for the runtime's single timer (null:
 * none). Traffic triggers are not timed: they are read from the traffic samples, which keep
 * coming while connected, and a wake-up at the very moment a stall would complete could not yet
 * know whether the interval ending then brought data back.
 */
export function nextWake(state: AutoState, now: number, ctx?: StepContext): number | null {
  if (!watching(state)) return null;
  if (state.check) {
    const deadline = ctx ? silentDeadline(state, ctx, state.check) : null;
    return deadline !== null && deadline > now ? deadline : null;
  }
  const raw = [
    state.lastScheduledAt + AUTO_RULES.scheduledIntervalMs,
    state.away?.nextRetryAt ?? null,
    state.frozen && state.freezeQuietUntil !== null ? state.freezeQuietUntil : null,
  ];
  const hold = activeHold(state, now);
  const times = raw
    .filter((t): t is number => t !== null)
    .map((t) => (hold ? Math.max(t, hold.until) : t));
  // A freeze waiting out a hold starts when it ends; the watch's periodic test is held by nothing.
  if (state.frozen && hold) times.push(hold.until);
  const watchAt = watchWakeAt(state.watch, now);
  if (watchAt !== null) times.push(watchAt);
  const future = times.filter((t) => t > now);
  return future.length ? Math.min(...future) : null;
}
