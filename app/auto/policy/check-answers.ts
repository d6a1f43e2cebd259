/**
 * How a check's answers count (spec/auto.md "How a check runs"): a ping answer counts unless its
 * server's transfer test says it freezes, and in a freeze check only when its traffic passed the
 * gate; an answer in hand stands in for a probe still out. Answering servers are ranked by the
 * switch score S', those with a fresh passing transfer first; streaks count answers in a row.
 */
import type { ServerId } from '../../../shared/domain/server';
import { switchScore } from './score';
import type { StepContext } from './state';
import { freshTransfer } from './transfer';
import type { AutoState, CheckInFlight, ProbeAnswer } from './types';

/**
 * An answer that counts: a ping answer from a server whose transfer test does not say it freezes,
 * and in a freeze check one whose traffic passed the check's gate.
 */
export function answered(check: CheckInFlight, id: ServerId): boolean {
  return counts(check, answerOf(check, id));
}

/** The check's own result for a server, else its answer in hand. */
export function answerOf(check: CheckInFlight, id: ServerId): ProbeAnswer | undefined {
  return check.results[id] ?? check.inHand?.[id];
}

export function counts(check: CheckInFlight, r: ProbeAnswer | undefined): boolean {
  return r !== undefined && r.delayMs !== null && r.transfer !== 'freezes' && (!check.gate || r.passed === true);
}

/** Some ping answered in this check (so the network was there), whatever the transfers said. */
export function pingsAnswered(check: CheckInFlight): boolean {
  return Object.values(check.results).some((r) => r.delayMs !== null);
}

/** Consecutive answers per server: an answer adds one, a silence starts over. */
export function withStreaks(state: AutoState, check: CheckInFlight): AutoState {
  const answerStreak = { ...state.answerStreak };
  for (const [id, r] of Object.entries(check.results)) answerStreak[id] = counts(check, r) ? (answerStreak[id] ?? 0) + 1 : 0;
  return { ...state, answerStreak };
}

/**
 * The answering server with the lowest S', those with a fresh transfer result that passed (15 s)
 * before those without (in a freeze check every target has one); ties go to the earlier one
 * (queue order).
 */
export function bestBySwitchScore(ctx: StepContext, check: CheckInFlight, ids: ServerId[]): ServerId {
  let best: { id: ServerId; rank: number } | null = null;
  for (const id of ids) {
    const rank = targetRank(ctx, check, id, answerOf(check, id)!.delayMs!);
    if (!best || rank < best.rank) best = { id, rank };
  }
  return best!.id;
}

/** A switch target's order: S' with this delay, after every server with a fresh transfer that passed when it has none. */
const UNTESTED_TRANSFER_RANK = 1e12;

export function targetRank(ctx: StepContext, check: CheckInFlight, id: ServerId, delayMs: number): number {
  // Fresh, as the 15 s rule has it: an old pass says little about a server that may just have died,
  // and would hold an early switch back for the whole probe timeout.
  const fresh = freshTransfer(ctx.world, id, ctx.now);
  const untested = !check.gate && !(fresh && (fresh.verdict === 'ok' || fresh.verdict === 'throttled'));
  return switchScore(delayMs, ctx.world.measurements(id), ctx.now) + (untested ? UNTESTED_TRANSFER_RANK : 0);
}
