/**
 * Moving the tunnel to another server, and what Auto remembers when it does:
 * - the server left because it went silent (or its whole subscription did) becomes the return
 *   candidate, if it belongs to Auto's subscription (leaving a neighbour's server while away keeps
 *   the own-subscription candidate);
 * - returning clears the candidate; answer streaks start over with every switch;
 * - Auto's own switches count towards 3 per 3 minutes; the tunnel is quiet for 5 s afterwards;
 * - landing outside Auto's subscription starts the once-a-minute own-subscription checks;
 * - a switch made without a probe (Auto turned on, a vanished or marked server) is followed at
 *   once by the monitor's event test of the new server (seed 000: a group switching to another
 *   server has the new selection tested), so its ping is known before the next check.
 
 * While the VPN is disconnected a "switch" only selects the server the next connect will use: no
 * line is logged and no cooldown starts.
 */
import type { SwitchReason } from '../../../shared/domain/auto';
import type { ServerId } from '../../../shared/domain/server';
import { AUTO_RULES } from './constants';
import { isRateLimitedReason, quietAfter, recentSwitches } from './limits';
import { log, type StepContext } from './state';
import { restartSilence } from './traffic';
import { freshTransfer } from './transfer';
import { watchOf } from './watch';
import type { AutoState, ConnectReason } from './types';
import { subscriptionOf } from './world';

/** Switches decided from a check's answers: the new server was just measured. */
const PROBED_REASONS: ReadonlySet<SwitchReason> = new Set(['current-silent', 'neighbour-subscription', 'return']);

export function switchTo(state: AutoState, ctx: StepContext, to: ServerId, reason: SwitchReason): AutoState {
  const from = state.current;
  ctx.out.push({ kind: 'connect', serverId: to, reason });
  if (!state.connected) return { ...state, current: to, traffic: restartSilence(state.traffic), watch: watchOf(to, ctx.now), frozen: null };
  log(ctx, { type: 'switch', at: ctx.now, from, to, reason });
  if (!PROBED_REASONS.has(reason)) ctx.out.push({ kind: 'event-test', serverId: to });

  const fromSubscription = from === null ? undefined : subscriptionOf(ctx.world, from)?.id;
  const toSubscription = subscriptionOf(ctx.world, to)?.id;
  let returnCandidate = state.returnCandidate;
  if (reason === 'return') returnCandidate = null;
  else if ((reason === 'current-silent' || reason === 'neighbour-subscription') && from !== null && fromSubscription === state.subscriptionId) {
    returnCandidate = from;
  }
  if (returnCandidate === to) returnCandidate = null;

  const away =
    state.subscriptionId === null || toSubscription === state.subscriptionId
      ? null
      : (state.away ?? { failures: 0, nextRetryAt: ctx.now + AUTO_RULES.ownRetryIntervalMs, lastRetryAt: ctx.now });

  return {
    ...state,
    current: to,
    returnCandidate,
    away,
    widen: null,
    // The new server is watched from its own start; the old one's freeze is no longer the user's.
    watch: watchOf(to, ctx.now, freshTransfer(ctx.world, to, ctx.now)?.at ?? null),
    frozen: null,
    freezeQuietUntil: null,
    answerStreak: {},
    quiet: quietAfter(true, ctx.now),
    traffic: restartSilence(state.traffic),
    switchTimes: isRateLimitedReason(reason) ? [...recentSwitches(state.switchTimes, ctx.now), ctx.now] : state.switchTimes,
  };
}

/** A connect that is not Auto's decision (the user's own choice): no line, no memory. */
export function connectManually(state: AutoState, ctx: StepContext, to: ServerId, reason: ConnectReason): AutoState {
  ctx.out.push({ kind: 'connect', serverId: to, reason });
  return { ...state, current: to, traffic: restartSilence(state.traffic), watch: watchOf(to, ctx.now), frozen: null, freezeQuietUntil: null };
}
