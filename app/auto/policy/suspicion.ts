/**
 * Suspicion: traffic through the current server that looks frozen, read from the core's byte
 * counters (the tunnel's stats samples: bytes up and down per 250 ms interval). DPI that freezes
 * foreign connections after their first 16–20 KB leaves a pattern the stall trigger cannot see:
 * every new connection still gets its first bytes, so something keeps arriving. Two shapes count,
 * both only while data is being sent (spec/auto.md trigger 1's words) and something is received
 * (a server gone silent is the stall trigger's):
 *
 * - **capped downstream**: in the last 4 s, at least 3 intervals sent, and what came back is no
 *   more than 24 KB per interval that sent: requests keep going out (new connections opening,
 *   or old ones sending), and each gets about what DPI lets through and no more;
 * - **collapse**: the 4 s before the last 2 s received at least 128 KB, the last 2 s received
 *   something, but less than an eighth of that rate, and sent in at least 2 intervals: a download
 *   that was flowing fell to a trickle while the user still asks for more.
 *
 * Suspicion only asks for the current server's transfer test (the verdict decides, never the
 * counters), so a false alarm costs one 64 KB download, and no more than one per 20 s
 * (AUTO_RULES.watchSuspicionRetestMs).
 */
import type { TrafficSample } from '../../../shared/domain/connection';

export const SUSPICION_RULES = {
  capWindowMs: 4000,
  capMinSendingIntervals: 3,
  capBytesPerSendingInterval: 24 * 1024,
  collapseRecentMs: 2000,
  collapsePriorMs: 4000,
  collapsePriorMinBytes: 128 * 1024,
  collapseShare: 1 / 8,
  collapseMinSendingIntervals: 2,
} as const;

/** How far back the tracker keeps samples (the flow proof, ./flow-proof.ts, reads the same ones). */
export const TRACKER_KEPT_MS = SUSPICION_RULES.collapseRecentMs + SUSPICION_RULES.collapsePriorMs;

interface Interval {
  /** End of the interval. */
  at: number;
  upBytes: number;
  downBytes: number;
}

/** The samples of the last 6 s, oldest first. */
export interface SuspicionTracker {
  intervals: readonly Interval[];
}

export const NO_SUSPICION: SuspicionTracker = { intervals: [] };

export function observeForSuspicion(tracker: SuspicionTracker, sample: TrafficSample): SuspicionTracker {
  const kept = tracker.intervals.filter((i) => i.at > sample.at - TRACKER_KEPT_MS && i.at < sample.at);
  return { intervals: [...kept, { at: sample.at, upBytes: sample.upBytes, downBytes: sample.downBytes }] };
}

export type SuspicionShape = 'capped-downstream' | 'collapse';

/** Which shape of frozen-looking traffic the last seconds show, if any. */
export function suspicion(tracker: SuspicionTracker, now: number): SuspicionShape | null {
  const r = SUSPICION_RULES;
  const within = (fromMs: number, toMs: number) => tracker.intervals.filter((i) => i.at > now - fromMs && i.at <= now - toMs);
  const sum = (list: readonly Interval[], key: 'upBytes' | 'downBytes') => list.reduce((total, i) => total + i[key], 0);
  const sending = (list: readonly Interval[]) => list.filter((i) => i.upBytes > 0).length;

  const recent = within(r.capWindowMs, 0);
  const sends = sending(recent);
  const down = sum(recent, 'downBytes');
  if (sends >= r.capMinSendingIntervals && down > 0 && down <= sends * r.capBytesPerSendingInterval) return 'capped-downstream';

  const last = within(r.collapseRecentMs, 0);
  const before = within(r.collapseRecentMs + r.collapsePriorMs, r.collapseRecentMs);
  const lastDown = sum(last, 'downBytes');
  const beforeDown = sum(before, 'downBytes');
  const lastRate = lastDown / r.collapseRecentMs;
  const beforeRate = beforeDown / r.collapsePriorMs;
  if (beforeDown >= r.collapsePriorMinBytes && lastDown > 0 && lastRate < beforeRate * r.collapseShare && sending(last) >= r.collapseMinSendingIntervals) {
    return 'collapse';
  }
  return null;
}
