/** The reducer's starting state, what of it is persisted, and small helpers shared by its parts. */
import type { AutoDecision } from '../../../shared/domain/auto';
import type { ServerId, SubscriptionId } from '../../../shared/domain/server';
import type { AutoConfig } from './constants';
import { queueOrder } from './queue';
import { QUIET_TRACKER } from './traffic';
import { watchOf } from './watch';
import type { AutoCommand, AutoState } from './types';
import { type AutoWorld, findSubscription, subscriptionOf } from './world';

/** What survives a restart: the user's choices and the server Auto may return to. */
export interface PersistedAutoState {
  subscriptionId: SubscriptionId | null;
  excluded: Record<SubscriptionId, ServerId[]>;
  returnCandidate: ServerId | null;
}

export const NOTHING_PERSISTED: PersistedAutoState = { subscriptionId: null, excluded: {}, returnCandidate: null };

export function initialState(config: AutoConfig, persisted: PersistedAutoState, now: number): AutoState {
  return {
    config,
    subscriptionId: persisted.subscriptionId,
    excluded: persisted.excluded,
    current: null,
    connected: false,
    network: 'up',
    traffic: QUIET_TRACKER,
    lastScheduledAt: now,
    check: null,
    nextCheckId: 1,
    quiet: null,
    networkLoss: null,
    rateLimitedUntil: null,
    switchTimes: [],
    widen: null,
    away: null,
    returnCandidate: persisted.returnCandidate,
    answerStreak: {},
    announcedHold: null,
    wakeAt: null,
    trailing: null,
    frozen: null,
    freezeQuietUntil: null,
    watch: watchOf(null, now),
  };
}

export function persistedOf(state: AutoState): PersistedAutoState {
  return { subscriptionId: state.subscriptionId, excluded: state.excluded, returnCandidate: state.returnCandidate };
}

/** Whether anything the UI shows of Auto (besides the timeline) differs. */
export function snapshotChanged(before: AutoState, after: AutoState): boolean {
  return (
    before.subscriptionId !== after.subscriptionId ||
    before.excluded !== after.excluded ||
    before.returnCandidate !== after.returnCandidate ||
    before.networkLoss?.until !== after.networkLoss?.until
  );
}

/** The step's working context: the time, the world it reads and the commands it has issued. */
export interface StepContext {
  now: number;
  world: AutoWorld;
  out: AutoCommand[];
}

export function log(ctx: StepContext, decision: AutoDecision): void {
  ctx.out.push({ kind: 'log', decision });
}

/** The subscription's marked servers: the reducer's own marks and those its world says were made elsewhere. */
export function excludedIn(state: AutoState, world: AutoWorld, subscriptionId: SubscriptionId): ReadonlySet<ServerId> {
  const marks = new Set(state.excluded[subscriptionId] ?? []);
  for (const id of markedElsewhereIn(world, subscriptionId)) marks.add(id);
  return marks;
}

/** The subscription's servers marked in a list the reducer does not own (none for the main Auto). */
export function markedElsewhereIn(world: AutoWorld, subscriptionId: SubscriptionId): ServerId[] {
  const marked = world.markedElsewhere;
  if (!marked) return [];
  return (findSubscription(world, subscriptionId)?.serverIds ?? []).filter((id) => marked(id));
}

/** A subscription's servers in queue order, marked ones left out (unless only marked remain). */
export function queueOf(state: AutoState, ctx: StepContext, subscriptionId: SubscriptionId | null): ServerId[] {
  if (subscriptionId === null) return [];
  const subscription = findSubscription(ctx.world, subscriptionId);
  if (!subscription) return [];
  return queueOrder(ctx.world, subscription.serverIds, ctx.now, excludedIn(state, ctx.world, subscriptionId));
}

/** The subscription the current server belongs to (Auto's own one unless it moved to a neighbour). */
export function homeOf(state: AutoState, ctx: StepContext): SubscriptionId | null {
  if (state.current === null) return state.subscriptionId;
  return subscriptionOf(ctx.world, state.current)?.id ?? state.subscriptionId;
}

/** Auto may take this server: it exists and is not marked (or only marked ones are left in its subscription). */
export function mayTake(state: AutoState, ctx: StepContext, id: ServerId): boolean {
  const subscription = subscriptionOf(ctx.world, id);
  if (!subscription) return false;
  const marks = excludedIn(state, ctx.world, subscription.id);
  return !marks.has(id) || subscription.serverIds.every((other) => marks.has(other));
}

/** Auto's episode-long memory, cleared when Auto is turned off or on for another subscription. */
export function forgetEpisode(state: AutoState): AutoState {
  return {
    ...state,
    networkLoss: null,
    rateLimitedUntil: null,
    switchTimes: [],
    widen: null,
    away: null,
    returnCandidate: null,
    answerStreak: {},
    announcedHold: null,
    freezeQuietUntil: null,
  };
}

export function uniqueIds(ids: readonly ServerId[]): ServerId[] {
  return [...new Set(ids)];
}
