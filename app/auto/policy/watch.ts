/**
 * The current server is watched for freezing (a ping passes under the 16–20 KB after which DPI
 * freezes connections; only a transfer shows it). While the connection is in use its transfer
 * test runs:
 * - when the connection starts (Auto's first server, or the one it just switched to), once
 *   traffic passes through it;
 * - on suspicion (./suspicion.ts), once its last result is 20 s old;
 * - otherwise at least every 60 s while traffic passes, unless the traffic itself proved the
 *   server carries connections well past the freeze threshold within those 60 s (./flow-proof.ts):
 *   a stream or a download already showed what the 64 KB test would, so the test waits 60 s
 *   from that proof instead; and light use (less received since the last result than the test
 *   itself downloads) is tested every 5 minutes instead, so the test never costs more than the
 *   traffic it guards.
 * Any transfer result of the server counts (the monitor's own, a check's), so a test the monitor
 * just made is not repeated. One test at a time. An idle connection is never tested. A proof
 * never stands in for the test as the connection starts or for one on suspicion.
 */
import type { ServerId } from '../../../shared/domain/server';
import type { TrafficSample } from '../../../shared/domain/connection';
import { AUTO_RULES } from './constants';
import { flowProves } from './flow-proof';
import { NO_SUSPICION, observeForSuspicion, suspicion, type SuspicionTracker } from './suspicion';
import { activeSince, type TrafficTracker } from './traffic';

export type WatchReason = 'connected' | 'suspicion' | 'periodic';

export interface WatchState {
  /** The server watched (the current one) and since when. */
  serverId: ServerId | null;
  since: number;
  /**
   * When it was last tested since then: its latest transfer result, or the end of a watch test
   * that brought none (one that could not be made is not retried before the next is due).
   */
  lastResultAt: number | null;
  /** A watch test of it is running, since then. */
  runningSince: number | null;
  suspicion: SuspicionTracker;
  /** The traffic last proved the server does not freeze (./flow-proof.ts), since `since`; absent: never. */
  provenAt?: number | null;
  /** Bytes the connection received since the last result or proof (absent: none counted yet). */
  receivedSince?: number;
}

/** Watching `serverId` from now; a fresh result of it in hand (a check's, seconds old) stands for the test at the connection's start. */
export function watchOf(serverId: ServerId | null, now: number, freshResultAt: number | null = null): WatchState {
  return { serverId, since: now, lastResultAt: freshResultAt, runningSince: null, suspicion: NO_SUSPICION };
}

export function watchSample(watch: WatchState, sample: TrafficSample): WatchState {
  const tracker = observeForSuspicion(watch.suspicion, sample);
  if (flowProves(tracker, sample.at)) return { ...watch, suspicion: tracker, provenAt: sample.at, receivedSince: 0 };
  return { ...watch, suspicion: tracker, receivedSince: (watch.receivedSince ?? 0) + sample.downBytes };
}

/** The last time the server was shown not to freeze: its last result, or a later proof by the traffic. */
function lastShownAt(watch: WatchState, last: number): number {
  return Math.max(last, watch.provenAt ?? last);
}

/** A transfer result of the watched server (results older than the last one seen are not news). */
export function watchResult(watch: WatchState, serverId: ServerId, at: number): { watch: WatchState; news: boolean } {
  if (serverId !== watch.serverId || at < watch.since || (watch.lastResultAt !== null && at <= watch.lastResultAt)) return { watch, news: false };
  return { watch: { ...watch, lastResultAt: at, receivedSince: 0 }, news: true };
}

/** The watch's own test ended (its result, if any, was seen just before). */
export function watchEnded(watch: WatchState, now: number): WatchState {
  return { ...watch, runningSince: null, lastResultAt: Math.max(watch.lastResultAt ?? now, now), receivedSince: 0 };
}

/** How long after the last result or proof the periodic test falls due: sooner once the use is more than light. */
function periodicAfterMs(watch: WatchState): number {
  return (watch.receivedSince ?? 0) >= AUTO_RULES.watchPeriodicTrafficBytes ? AUTO_RULES.watchIntervalMs : AUTO_RULES.watchLightUseIntervalMs;
}

function running(watch: WatchState, now: number): boolean {
  return watch.runningSince !== null && now - watch.runningSince < AUTO_RULES.watchLostAfterMs;
}

/** Why the watched server's transfer test is due now, if it is. */
export function watchDue(watch: WatchState, traffic: TrafficTracker, now: number): WatchReason | null {
  if (watch.serverId === null || running(watch, now)) return null;
  const last = watch.lastResultAt;
  if (last === null) return activeSince(traffic, watch.since) ? 'connected' : null;
  if (now - last >= AUTO_RULES.watchSuspicionRetestMs && suspicion(watch.suspicion, now) !== null) return 'suspicion';
  const shown = lastShownAt(watch, last);
  if (now - shown >= periodicAfterMs(watch) && activeSince(traffic, shown)) return 'periodic';
  return null;
}

/** When the periodic test falls due (traffic permitting), for the runtime's timer. */
export function watchWakeAt(watch: WatchState, now: number): number | null {
  if (watch.serverId === null || watch.lastResultAt === null || running(watch, now)) return null;
  return lastShownAt(watch, watch.lastResultAt) + periodicAfterMs(watch);
}
