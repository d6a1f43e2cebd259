/**
 * What the window and the tray say about the connection and the servers' measurements, from the
 * engine's own verdicts (issue 28): while Auto's network-loss verdict is in force the tunnel is
 * not "Connected" however its state reads, the pings measured before the loss say nothing of now,
 * and no server's reachability verdict can be trusted. Pure: the renderer and the tray call it
 * with the time of their own clock tick.
 */
import type { AutoSnapshot, TimelineEntry } from './auto';
import type { ConnectionStateName } from './connection';

export type ShownConnection =
  | { kind: 'state'; state: ConnectionStateName }
  /**
   * `nextTryInMs`: until Auto's next try; 0 once that time has come and the try is under way;
   * null while nothing answers and Auto's own check has not yet confirmed it ("checking").
   */
  | { kind: 'network-lost'; nextTryInMs: number | null };

/** The part of Auto's snapshot that says the network is lost. */
export type LossView = Pick<AutoSnapshot, 'networkLostUntil' | 'networkSilentSince'>;

/** States in which a tunnel is up or coming up: only they can be overruled by a lost network. */
const TUNNEL_STATES: ReadonlySet<ConnectionStateName> = new Set(['connected', 'connecting', 'reconnecting']);

/**
 * The state to show. The engine clears `networkLostUntil` when the network answers again, so a
 * value whose time has passed still means "lost, trying now", not "connected". Before Auto's
 * verdict, the silence of every server asked (`networkSilentSince`) already says "lost", not yet
 * with a next try.
 */
export function shownConnection(state: ConnectionStateName, auto: LossView | null, now: number): ShownConnection {
  const until = auto?.networkLostUntil ?? null;
  const silent = auto?.networkSilentSince ?? null;
  if ((until === null && silent === null) || !TUNNEL_STATES.has(state)) return { kind: 'state', state };
  return { kind: 'network-lost', nextTryInMs: until === null ? null : Math.max(0, until - now) };
}

/**
 * When the loss now in force began: when nothing answered any more, if the engine saw it (the
 * traffic's stall, before Auto's verdict), else the first `network-lost` decision of the latest
 * run of them (attempt 1 starts a run). Null when no loss is in force.
 */
export function networkLostSince(auto: (LossView & { timeline: readonly TimelineEntry[] }) | null): number | null {
  if (!auto) return null;
  const silent = auto.networkSilentSince ?? null;
  if (auto.networkLostUntil === null) return silent;
  let since: number | null = null;
  for (const entry of auto.timeline) {
    if (entry.type !== 'network-lost') continue;
    if (entry.attempt === 1 || since === null) since = entry.at;
  }
  if (since === null) return silent;
  return silent === null ? since : Math.min(since, silent);
}

/** Whether a measurement taken at `measuredAt` is from before the loss in force (then it is stale). */
export function measuredBeforeLoss(measuredAt: number | null, lostSince: number | null): boolean {
  return lostSince !== null && measuredAt !== null && measuredAt < lostSince;
}

/** Whole seconds of a countdown, rounded up: "next try in 15 s" until the last second has gone. */
export function countdownSeconds(ms: number): number {
  return Math.ceil(Math.max(0, ms) / 1000);
}
