/**
 * Answers in hand. A check started by a dial failure needs no probe to know the current server is
 * gone (the core failing to connect said so); what keeps the user waiting is the candidates'
 * probes, a few round trips each, and the slowest candidate that could still be the best.
 * spec/monitor.md does not retest a fresh selection measured within the last 15 s; by the same
 * measure, a candidate whose latest measurement is a URL answer younger than that counts as having
 * answered this check, with that delay. Such answers decide only once the check has a fresh answer
 * of its own (check-end.ts `concludeEarly`): a reset of the whole subscription, or of the user's
 * network, must still be found as such, not answered with a switch to a server that answered
 * seconds before the fault. So the switch waits for the first candidate to answer, never for the
 * slower ones whose answers are in hand.
 *
 * Nothing is invented: the answer is one the server gave and is already in its history, so it is
 * not recorded again; the candidate's probe still goes out, a result it brings before the
 * decision replaces the answer in hand, and one it brings after is recorded as a late answer.
 * Results loaded from the previous run's cache, failures, other methods and a transfer test that
 * froze are never in hand.
 */
import type { Measurement } from '../../../shared/domain/measurement';
import type { ServerId } from '../../../shared/domain/server';
import { AUTO_RULES } from './constants';
import type { StepContext } from './state';
import { transferMarkOf } from './transfer';
import type { ProbeAnswer } from './types';

export function answersInHand(ctx: StepContext, ids: readonly ServerId[]): Record<ServerId, ProbeAnswer> {
  const inHand: Record<ServerId, ProbeAnswer> = {};
  for (const id of ids) {
    if (ctx.world.fromCache(id)) continue;
    const latest = ctx.world.measurements(id).reduce<Measurement | null>((a, m) => (m.at <= ctx.now && (!a || m.at >= a.at) ? m : a), null);
    if (!latest || latest.method !== 'url' || latest.delayMs === null || ctx.now - latest.at > AUTO_RULES.inHandMaxAgeMs) continue;
    const transfer = transferMarkOf(ctx.world, id);
    if (transfer === 'freezes') continue;
    inHand[id] = { at: latest.at, delayMs: latest.delayMs, ...(transfer ? { transfer } : {}) };
  }
  return inHand;
}
