/**
 * How a check is closed: its held lines are logged with its conclusion, its results written to
 * history only when the network was there (something answered), and the cooldown started; a
 * switch it concludes on may be held back by the switch rate limit. A prepared check that
 * dissolves and a check abandoned midway close here too.
 */
import type { AutoDecision, SwitchReason } from '../../../shared/domain/auto';
import type { ServerId } from '../../../shared/domain/server';
import { activeHold, isRateLimitedReason, quietAfter, rateLimitedUntil } from './limits';
import { log, type StepContext } from './state';
import { switchTo } from './switching';
import type { AutoState, CheckInFlight } from './types';

/**
 * The stall healed before the threshold: the prepared check dissolves and changes nothing — no
 * check, no cooldown, and nothing written to history (its lines say `recorded: false`): a stall
 * shorter than the threshold is not evidence against anyone, and a failure recorded from it would
 * cost a server 1000 for 24 h. Answers still to come are dropped.
 */
export function dissolvePrepared(state: AutoState, ctx: StepContext): AutoState {
  const check = state.check;
  if (!check || check.phase !== 'prepared') return state;
  flush(ctx, check, false);
  return { ...state, check: null };
}

/** Ends a check early (the user acted, the tunnel or the network went away): what came in is logged, and recorded if anything answered. */
export function abandonCheck(state: AutoState, ctx: StepContext): AutoState {
  const check = state.check;
  if (!check) return state;
  const recorded = Object.values(check.results).some((r) => r.delayMs !== null);
  flush(ctx, check, recorded);
  return { ...state, check: null };
}

/** The check concludes on a switch to `to`, unless the switch rate limit holds it: then Auto stays and says until when. */
export function finishWithSwitch(state: AutoState, ctx: StepContext, check: CheckInFlight, to: ServerId, reason: SwitchReason): AutoState {
  const limitedUntil = isRateLimitedReason(reason) ? rateLimitedUntil(state.switchTimes, ctx.now) : null;
  if (limitedUntil !== null) {
    const limited: AutoDecision = { type: 'rate-limited', at: ctx.now, until: limitedUntil };
    const next = finish({ ...state, rateLimitedUntil: limitedUntil }, ctx, check, true, false, [limited]);
    return { ...next, announcedHold: activeHold(next, ctx.now) };
  }
  return switchTo(finish(state, ctx, check, true, true, []), ctx, to, reason);
}

/** Logs the check's held lines and its conclusion, records its results if the network was there, and starts the cooldown. */
export function finish(state: AutoState, ctx: StepContext, check: CheckInFlight, recorded: boolean, switched: boolean, conclusion: AutoDecision[]): AutoState {
  flush(ctx, check, recorded);
  for (const decision of conclusion) log(ctx, decision);
  return { ...state, check: null, quiet: quietAfter(switched, ctx.now) };
}

function flush(ctx: StepContext, check: CheckInFlight, recorded: boolean): void {
  for (const entry of check.log) {
    if (entry.kind === 'line') {
      log(ctx, entry.decision);
      continue;
    }
    const r = check.results[entry.id]!;
    log(ctx, { type: 'probe-result', at: r.at, id: entry.id, delay: r.delayMs, recorded, ...(r.transfer ? { transfer: r.transfer } : {}) });
  }
  if (!recorded) return;
  const results = check.log.flatMap((entry) => {
    if (entry.kind !== 'result') return [];
    const r = check.results[entry.id]!;
    const measurement = { at: r.at, method: 'url' as const, delayMs: r.delayMs, ...(r.error ? { error: r.error } : {}) };
    return [{ serverId: entry.id, measurement }];
  });
  if (results.length > 0) ctx.out.push({ kind: 'record', results });
}
