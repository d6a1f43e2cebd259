/**
 * spec/auto.md "Limits" and the network-loss pause: what keeps Auto from spinning.
 * - At most 3 switches per 3 minutes. Counted are Auto's own switches (current-silent,
 *   neighbour-subscription, return); a user's action (auto-on, excluded) or a server gone from the
 *   subscription (server-removed) is never held back and does not use up the allowance.
 * - No new check for 5 s after a switch, 15 s after a check that did not switch.
 * - Network lost: no check until T_k has passed (a network change lifts it).
 */
import type { SwitchReason } from '../../../shared/domain/auto';
import { AUTO_RULES } from './constants';
import type { AutoState, Hold, HoldReason } from './types';

const LIMITED_REASONS: ReadonlySet<SwitchReason> = new Set(['current-silent', 'neighbour-subscription', 'return']);

export function isRateLimitedReason(reason: SwitchReason): boolean {
  return LIMITED_REASONS.has(reason);
}

/** Switch times still inside the 3-minute window. */
export function recentSwitches(times: readonly number[], now: number): number[] {
  return times.filter((t) => t > now - AUTO_RULES.switchWindowMs);
}

/** When the next limited switch may happen, or null if one may happen now. */
export function rateLimitedUntil(times: readonly number[], now: number): number | null {
  const recent = recentSwitches(times, now).sort((a, b) => a - b);
  if (recent.length < AUTO_RULES.switchLimit) return null;
  return recent[recent.length - AUTO_RULES.switchLimit]! + AUTO_RULES.switchWindowMs;
}

/** Which hold a due check would hit (the one lasting longest; loss and rate limit name themselves first on a tie). */
export function activeHold(state: AutoState, now: number): Hold | null {
  const holds: Hold[] = [];
  if (state.networkLoss && state.networkLoss.until > now) holds.push({ until: state.networkLoss.until, reason: 'network-lost' });
  if (state.rateLimitedUntil !== null && state.rateLimitedUntil > now) holds.push({ until: state.rateLimitedUntil, reason: 'rate-limited' });
  if (state.quiet && state.quiet.until > now) holds.push(state.quiet);
  let best: Hold | null = null;
  for (const hold of holds) if (!best || hold.until > best.until) best = hold;
  return best;
}

export function quietAfter(switched: boolean, now: number): Hold {
  const reason: HoldReason = switched ? 'after-switch' : 'after-check';
  return { until: now + (switched ? AUTO_RULES.afterSwitchQuietMs : AUTO_RULES.afterCheckQuietMs), reason };
}

export function sameHold(a: Hold | null, b: Hold | null): boolean {
  return a !== null && b !== null && a.until === b.until && a.reason === b.reason;
}
