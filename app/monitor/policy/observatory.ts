/**
 * A server's status in the observatory's own words (spec/observatory.md, after Xray's
 * OutboundStatus): `alive`, `delay` (99,999,999 for a failure, "infinite for sorting"),
 * `lastErrorReason`, `lastSeenTime` (when it last answered) and `lastTryTime` (when it was last
 * tested), times in Unix seconds as that API gives them; null when it never happened.
 */
import type { Measurement, ProbeError } from '../../../shared/domain/measurement';
import type { ObservatoryStatus } from '../../../shared/domain/status';

/** The delay the observatory reports for a failed probe. */
export const FAILED_DELAY = 99_999_999;

export function observatoryStatus(last: { delayMs: number | null; at: number; error: ProbeError | null } | null, history: readonly Measurement[]): ObservatoryStatus {
  const alive = last !== null && last.delayMs !== null;
  let seenAt: number | null = alive ? last.at : null;
  for (const m of history) if (m.delayMs !== null && (seenAt === null || m.at > seenAt)) seenAt = m.at;
  return {
    alive,
    delay: alive ? last.delayMs! : FAILED_DELAY,
    lastErrorReason: last?.error?.message ?? '',
    lastSeenTime: seenAt === null ? null : unixSeconds(seenAt),
    lastTryTime: last === null ? null : unixSeconds(last.at),
  };
}

function unixSeconds(ms: number): number {
  return Math.floor(ms / 1000);
}
