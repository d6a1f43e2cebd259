/**
 * Triggers 1 and 3 of spec/auto.md, read from the tunnel's traffic samples (bytes per stats
 * interval; a sample's `at` is the end of its interval):
 *
 * - stall: data is being sent and nothing comes back, `stallThresholdMs` in a row (5 s on
 *   desktop). The run starts at the beginning of the first interval that sent without receiving
 *   and breaks on any interval that received, or when a pause in sending reaches half the
 *   threshold ("data is being sent"; see AUTO_RULES.sendingGapShare).
 * - no-receive-30s: something was sent and nothing has come back for 30 s since, even if the
 *   sending was sporadic. Counted from the first unanswered send, not from the last receive, so an
 *   idle evening followed by one request does not count as 30 s of silence.
 *
 * Also tracked: the last interval with any traffic, which makes the scheduled check (and the
 * other time-based checks) due only when the device was used: an idle device is never probed.
 */
import type { TrafficSample } from '../../../shared/domain/connection';
import { AUTO_RULES } from './constants';

export interface TrafficTracker {
  /** Start of the current run of intervals that sent without receiving. */
  stallSince: number | null;
  /** Start of the first interval that sent after the last one that received. */
  unansweredSince: number | null;
  /** End of the last interval with any bytes either way. */
  lastActivityAt: number | null;
  /** End of the last interval that sent. */
  lastSendAt: number | null;
}

export const QUIET_TRACKER: TrafficTracker = { stallSince: null, unansweredSince: null, lastActivityAt: null, lastSendAt: null };

export function observeSample(tracker: TrafficTracker, sample: TrafficSample, stallThresholdMs: number): TrafficTracker {
  const maxPauseMs = stallThresholdMs * AUTO_RULES.sendingGapShare;
  const start = sample.at - sample.intervalMs;
  const sent = sample.upBytes > 0;
  const received = sample.downBytes > 0;
  const lastActivityAt = sent || received ? sample.at : tracker.lastActivityAt;
  const lastSendAt = sent ? sample.at : tracker.lastSendAt;
  if (received) return { stallSince: null, unansweredSince: null, lastActivityAt, lastSendAt };
  const sendingStopped = (until: number) => tracker.lastSendAt === null || until - tracker.lastSendAt >= maxPauseMs;
  if (!sent) {
    const stallSince = tracker.stallSince !== null && sendingStopped(sample.at) ? null : tracker.stallSince;
    return { ...tracker, stallSince, lastActivityAt };
  }
  const continues = tracker.stallSince !== null && !sendingStopped(start);
  return {
    stallSince: continues ? tracker.stallSince : start,
    unansweredSince: tracker.unansweredSince ?? start,
    lastActivityAt,
    lastSendAt,
  };
}

/** Forget the silence seen so far (a check started, or the tunnel moved to another server). */
export function restartSilence(tracker: TrafficTracker): TrafficTracker {
  return { ...tracker, stallSince: null, unansweredSince: null };
}

export type TrafficTrigger = 'stall' | 'no-receive-30s';

/** Which traffic trigger holds at `now`, if any (stall first: it is the sooner and stronger sign). */
export function trafficTrigger(tracker: TrafficTracker, now: number, stallThresholdMs: number): TrafficTrigger | null {
  if (tracker.stallSince !== null && now - tracker.stallSince >= stallThresholdMs) return 'stall';
  if (tracker.unansweredSince !== null && now - tracker.unansweredSince >= AUTO_RULES.noReceiveMs) return 'no-receive-30s';
  return null;
}

/** There was traffic after `since`. */
export function activeSince(tracker: TrafficTracker, since: number): boolean {
  return tracker.lastActivityAt !== null && tracker.lastActivityAt > since;
}
