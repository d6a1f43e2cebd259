/**
 * The quick look at the network that lets the window tell the truth within 2 s of a loss, long
 * before Auto's own verdict can (spec/auto.md: 5 s of stalled traffic start a check, the current
 * server's probe must time out, then the neighbouring subscriptions' probes must too: about 13 s).
 *
 * It decides nothing for Auto and records nothing: Auto still checks, confirms and backs off as
 * the spec says, and never switches because of it. It only answers "does anything answer at all?"
 * for the window, the tray and reachability's blame:
 *
 * - Once the live traffic has sent without receiving for `stallMs`, the fastest servers of every
 *   subscription (`witnessesPerSubscription` each, the current server left out: its own traffic
 *   is already the evidence) are asked once, each given `answerWithinDelays` of its usual delay.
 *   Only servers whose usual delay fits that into `maxWaitMs` can testify in time.
 * - Every witness silent: the network counts as silent since the stall began (pings from before
 *   then are stale). One answer: the network is there (a dead server is Auto's business). Each
 *   stall is looked at once, and looks are at least `minSpacingMs` apart, so a slow page costs a
 *   few probes, not a stream; yet a cut soon after a stall that ended is still seen at once (a
 *   quiet spell after each answer once hid such a cut for up to 10 s).
 * - Bytes coming back, or any probe answering (Auto's included), end the silence at once. The OS
 *   saying "no network" is silence at once; "a network" ends it.
 */
import type { TrafficSample } from '../../../shared/domain/connection';
import type { Measurement } from '../../../shared/domain/measurement';
import type { ServerId } from '../../../shared/domain/server';
import { AUTO_RULES } from './constants';
import { observeSample, QUIET_TRACKER, type TrafficTracker } from './traffic';
import type { SubscriptionServers } from './world';

export const LOOK_RULES = {
  /** The look starts once the live traffic has sent without receiving this long (three 250 ms samples). */
  stallMs: 750,
  /** The fastest servers of each subscription asked. */
  witnessesPerSubscription: 2,
  /** A witness counts as silent past this many of its usual delays ... */
  answerWithinDelays: 3,
  /** ... never sooner than this ... */
  minWaitMs: 500,
  /** ... and a server whose wait would pass this cannot testify within the 2 s the window has. */
  maxWaitMs: 1000,
  /** Looks start at least this far apart. */
  minSpacingMs: 2000,
} as const;

export interface LookProbe {
  serverId: ServerId;
  waitMs: number;
}

export interface LookState {
  /** The live traffic as the look reads it (the same "sending without receiving" as Auto's stall). */
  traffic: TrafficTracker;
  connected: boolean;
  /** The look in flight: the witnesses that have not answered yet. */
  look: { id: number; since: number; pending: readonly ServerId[] } | null;
  /** Nothing answered since this time (epoch ms), or null. */
  silentSince: number | null;
  /** Why: every witness was silent, or the OS reported no network. */
  silentBy: 'witnesses' | 'os' | null;
  /** No look starts before this time (`minSpacingMs` after the last one). */
  quietUntil: number;
  /** The start of the stall last looked at: a stall is looked at once. */
  lookedStall: number | null;
  nextId: number;
}

export const LOOK_IDLE: LookState = { traffic: QUIET_TRACKER, connected: false, look: null, silentSince: null, silentBy: null, quietUntil: 0, lookedStall: null, nextId: 1 };

export type LookEvent =
  | { type: 'traffic'; sample: TrafficSample }
  | { type: 'witness'; lookId: number; serverId: ServerId; answered: boolean }
  /** A probe through some server answered (Auto's or the look's): the network is there. */
  | { type: 'answered' }
  | { type: 'os-network'; state: 'none' | 'up' }
  | { type: 'tunnel'; connected: boolean };

export type LookCommand = { kind: 'ask'; lookId: number; probes: readonly LookProbe[] };

export interface LookWorld {
  subscriptions(): readonly SubscriptionServers[];
  measurements(serverId: ServerId): readonly Measurement[];
  current: ServerId | null;
  /** Auto's stall threshold: its half is the longest pause that still counts as "sending". */
  stallThresholdMs: number;
}

export interface LookStep {
  state: LookState;
  commands: LookCommand[];
}

export function lookStep(state: LookState, event: LookEvent, now: number, world: LookWorld): LookStep {
  switch (event.type) {
    case 'tunnel':
      return done({ ...LOOK_IDLE, connected: event.connected, nextId: state.nextId });
    case 'os-network':
      if (event.state === 'up') return done(heard(state));
      return done(state.connected ? { ...state, look: null, silentSince: state.silentSince ?? now, silentBy: 'os' } : state);
    case 'answered':
      return done(heard(state));
    case 'witness':
      return done(onWitness(state, event));
    case 'traffic':
      return onTraffic(state, event.sample, now, world);
  }
}

function done(state: LookState): LookStep {
  return { state, commands: [] };
}

/** Something answered: no silence, no look. */
function heard(state: LookState): LookState {
  return { ...state, look: null, silentSince: null, silentBy: null };
}

function onWitness(state: LookState, event: Extract<LookEvent, { type: 'witness' }>): LookState {
  const look = state.look;
  if (!look || look.id !== event.lookId || !look.pending.includes(event.serverId)) return state;
  if (event.answered) return heard(state);
  const pending = look.pending.filter((id) => id !== event.serverId);
  if (pending.length > 0) return { ...state, look: { ...look, pending } };
  return { ...state, look: null, silentSince: look.since, silentBy: 'witnesses' };
}

function onTraffic(state: LookState, sample: TrafficSample, now: number, world: LookWorld): LookStep {
  if (!state.connected) return done(state);
  const traffic = observeSample(state.traffic, sample, world.stallThresholdMs);
  const next = { ...state, traffic };
  // Bytes came back: whatever the witnesses said, the network carries the user's traffic.
  if (sample.downBytes > 0) return done(state.silentSince !== null || state.look !== null ? heard(next) : next);
  const since = traffic.stallSince;
  if (since === null || now - since < LOOK_RULES.stallMs || since === next.lookedStall || next.look || next.silentSince !== null || now < next.quietUntil) return done(next);
  const probes = witnesses(world, now);
  if (probes.length === 0) return done(next);
  const id = next.nextId;
  return {
    state: { ...next, nextId: id + 1, look: { id, since, pending: probes.map((p) => p.serverId) }, lookedStall: since, quietUntil: now + LOOK_RULES.minSpacingMs },
    commands: [{ kind: 'ask', lookId: id, probes }],
  };
}

/** The fastest servers of every subscription whose usual delay lets them answer in time. */
export function witnesses(world: LookWorld, now: number): LookProbe[] {
  const out: LookProbe[] = [];
  const seen = new Set<ServerId>(world.current === null ? [] : [world.current]);
  for (const subscription of world.subscriptions()) {
    const timed = subscription.serverIds
      .filter((id) => !seen.has(id))
      .map((serverId) => ({ serverId, delayMs: usualDelayMs(world.measurements(serverId), now) }))
      .filter((w): w is { serverId: ServerId; delayMs: number } => w.delayMs !== null && w.delayMs * LOOK_RULES.answerWithinDelays <= LOOK_RULES.maxWaitMs)
      .sort((a, b) => a.delayMs - b.delayMs)
      .slice(0, LOOK_RULES.witnessesPerSubscription);
    for (const w of timed) {
      seen.add(w.serverId);
      out.push({ serverId: w.serverId, waitMs: Math.max(LOOK_RULES.minWaitMs, w.delayMs * LOOK_RULES.answerWithinDelays) });
    }
  }
  return out;
}

/**
 * A server's usual URL-test delay: the larger middle of its answered URL tests of the last 24 h
 * (as the score takes its median), null when it has none (it cannot say in time whether it is alive).
 */
export function usualDelayMs(measurements: readonly Measurement[], now: number): number | null {
  const delays = measurements
    .filter((m) => m.method === 'url' && m.delayMs !== null && now - m.at <= AUTO_RULES.scoreMaxAgeMs)
    .map((m) => m.delayMs as number)
    .sort((a, b) => a - b);
  if (delays.length === 0) return null;
  return delays[Math.floor(delays.length / 2)] as number;
}
