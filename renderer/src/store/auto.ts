/** Auto: which subscription it is on for, the servers the user marked, and its timeline. */
import type { AutoSnapshot } from '../../../shared/domain/auto';
import type { ServerId, SubscriptionId } from '../../../shared/domain/server';
import { type AppState, type SliceDeps } from './types';
import { type ActionResult, request } from './request';

export interface AutoSliceState {
  auto: AutoSnapshot;
}

export interface AutoActions {
  setAutoSnapshot(auto: AutoSnapshot): void;
  /** On for this subscription (turning any other off), or off when it is already on for it. */
  toggleAuto(subscriptionId: SubscriptionId): Promise<ActionResult<AutoSnapshot>>;
  setExcluded(subscriptionId: SubscriptionId, serverIds: ServerId[]): Promise<ActionResult<AutoSnapshot>>;
  /** A server group's own marks: members kept off its sites. */
  setGroupExcluded(group: string, serverIds: ServerId[]): Promise<ActionResult<AutoSnapshot>>;
}

export type AutoSlice = AutoSliceState & AutoActions;

/**
 * Timeline entries kept: the host keeps 2,000 of Auto's (app/auto/runtime.ts) and as many of each
 * group's; a window open for weeks takes what the host sends and never more, whatever host it
 * talks to. The oldest go first. A group's timeline keeps fewer: only its latest decisions are
 * shown beside the pick.
 */
export const TIMELINE_KEPT = 2000;
export const GROUP_TIMELINE_KEPT = 500;

const newest = <T>(list: T[], kept: number): T[] => (list.length > kept ? list.slice(-kept) : list);

/** The snapshot with its timelines within their caps (the same object when they already are). */
export function keptAuto(auto: AutoSnapshot): AutoSnapshot {
  const groupsOver = auto.groups?.some((g) => g.timeline.length > GROUP_TIMELINE_KEPT) ?? false;
  if (auto.timeline.length <= TIMELINE_KEPT && !groupsOver) return auto;
  return {
    ...auto,
    timeline: newest(auto.timeline, TIMELINE_KEPT),
    ...(auto.groups ? { groups: auto.groups.map((g) => (g.timeline.length > GROUP_TIMELINE_KEPT ? { ...g, timeline: newest(g.timeline, GROUP_TIMELINE_KEPT) } : g)) } : {}),
  };
}

export const autoInitialState: AutoSliceState = {
  auto: { subscriptionId: null, excluded: {}, returnCandidate: null, networkLostUntil: null, timeline: [] },
};

export function createAutoSlice(deps: SliceDeps): AutoSlice {
  const { set, get, client } = deps;
  return {
    ...autoInitialState,
    setAutoSnapshot: (auto) => set({ auto: keptAuto(auto) }),
    toggleAuto: async (subscriptionId) => {
      const next = get().auto.subscriptionId === subscriptionId ? null : subscriptionId;
      const result = await request(deps, 'auto', () => client.setAuto({ subscriptionId: next }));
      if (result.ok) set({ auto: keptAuto(result.value) });
      return result;
    },
    setExcluded: async (subscriptionId, serverIds) => {
      const result = await request(deps, 'exclude', () => client.setExcluded({ subscriptionId, serverIds }), { notify: false });
      if (result.ok) set({ auto: keptAuto(result.value) });
      return result;
    },
    setGroupExcluded: async (group, serverIds) => {
      const result = await request(deps, 'exclude', () => client.setGroupExcluded({ group, serverIds }), { notify: false });
      if (result.ok) set({ auto: result.value });
      return result;
    },
  };
}

export function selectAutoOn(state: AppState, subscriptionId: SubscriptionId): boolean {
  return state.auto.subscriptionId === subscriptionId;
}

const NO_IDS: ServerId[] = [];

export function selectExcludedIds(state: AppState, subscriptionId: SubscriptionId): ServerId[] {
  return state.auto.excluded[subscriptionId] ?? NO_IDS;
}

export interface ExcludeRule {
  /** The one server that must stay unmarked (the last unmarked one), if any. */
  lockedId: ServerId | null;
}

/**
 * The exclusion dialog's rule (spec/auto.md): the last unmarked server cannot be marked, so Auto
 * always has somewhere to go. Returns which checkbox is locked for the given draft of marks.
 */
export function exclusionLock(serverIds: readonly ServerId[], marked: ReadonlySet<ServerId>): ExcludeRule {
  const unmarked = serverIds.filter((id) => !marked.has(id));
  return { lockedId: unmarked.length === 1 ? (unmarked[0] ?? null) : null };
}
