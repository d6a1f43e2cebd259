/**
 * Subscriptions (in list order), what the monitor knows of each server, and what the core cannot
 * run. The host is the source of truth: snapshots replace, `statuses` events patch (once a frame).
 */
import type { InvokeRequest, ListStatus, ListSubscription } from '../../../shared/ipc/contract';
import type { CoreSummary } from '../../../shared/domain/connection';
import type { DirectMethod, DirectTestOutcome, Measurement } from '../../../shared/domain/measurement';
import type { ServerId, SubscriptionId } from '../../../shared/domain/server';
import type { ServerStatus } from '../../../shared/domain/status';
import { withStatuses } from './incoming';
import { type SliceDeps } from './types';
import { type ActionResult, request } from './request';

export interface ServersState {
  subscriptions: ListSubscription[];
  statuses: Record<ServerId, ListStatus>;
  unsupported: Record<ServerId, string>;
  /** Servers a second core (sing-box) carries, with the host's words for why. */
  carried: Record<ServerId, string>;
  core: CoreSummary | null;
  /** Measurements fetched for the details dialog, per server. */
  history: Record<ServerId, Measurement[]>;
}

export interface ServersActions {
  setSubscriptions(subscriptions: ListSubscription[]): void;
  /**
   * Applies status patches now (an action's own result), after whatever the host sent before
   * them. The host's `statuses` events go through the per-frame batch instead (see incoming.ts).
   */
  patchStatuses(changed: ListStatus[]): void;
  setUnsupported(unsupported: Record<ServerId, string>): void;
  addSubscription(input: InvokeRequest<'addSubscription'>): Promise<ActionResult<ListSubscription>>;
  updateSubscription(id: SubscriptionId): Promise<ActionResult<ListSubscription>>;
  /**
   * The User-Agent a subscription is fetched with (null: the app's own). Once saved, an update
   * runs with it, so the user sees at once what the provider serves to that name.
   */
  setSubscriptionUserAgent(id: SubscriptionId, userAgent: string | null): Promise<ActionResult<ListSubscription>>;
  removeSubscription(id: SubscriptionId): Promise<ActionResult<null>>;
  /** Moves a subscription by `delta` places (−1 up, +1 down). */
  moveSubscription(id: SubscriptionId, delta: number): Promise<ActionResult<null>>;
  /** Drag and drop: `id` takes the place of `targetId` (the ones between shift by one). */
  moveSubscriptionTo(id: SubscriptionId, targetId: SubscriptionId): Promise<ActionResult<null>>;
  reorderSubscriptions(ids: SubscriptionId[]): Promise<ActionResult<null>>;
  confirmEmptySubscription(id: SubscriptionId): Promise<ActionResult<ListSubscription>>;
  testServer(id: ServerId): Promise<ActionResult<ListStatus>>;
  measureThroughput(id: ServerId): Promise<ActionResult<ListStatus>>;
  /** A TCP or ICMP test straight to the server's address; its status updates with the result. */
  measureDirect(id: ServerId, method: DirectMethod): Promise<ActionResult<DirectTestOutcome>>;
  loadHistory(id: ServerId): Promise<ActionResult<Measurement[]>>;
  /** A server's whole status, statistics and last measurements included (the list holds less): for the details, which keep it while open. */
  loadServerStatus(id: ServerId): Promise<ActionResult<ServerStatus>>;
}

export type ServersSlice = ServersState & ServersActions;

/** Histories kept: the servers whose details were opened last (a window open for weeks opens thousands). */
export const HISTORIES_KEPT = 8;
/** Points kept of one history: more than a chart can show apart. */
export const HISTORY_POINTS_KEPT = 1000;

/** `histories` with `id`'s new one, the most recent last; the oldest beyond HISTORIES_KEPT leave. */
export function keptHistories(histories: Record<ServerId, Measurement[]>, id: ServerId, measurements: Measurement[]): Record<ServerId, Measurement[]> {
  const { [id]: _previous, ...others } = histories;
  const kept = Object.entries(others).slice(-(HISTORIES_KEPT - 1));
  return { ...Object.fromEntries(kept), [id]: measurements.length > HISTORY_POINTS_KEPT ? measurements.slice(-HISTORY_POINTS_KEPT) : measurements };
}

export const serversInitialState: ServersState = {
  subscriptions: [],
  statuses: {},
  unsupported: {},
  carried: {},
  core: null,
  history: {},
};

function upsert(list: ListSubscription[], subscription: ListSubscription): ListSubscription[] {
  const at = list.findIndex((s) => s.id === subscription.id);
  if (at === -1) return [...list, subscription];
  const next = [...list];
  next[at] = subscription;
  return next;
}

export function createServersSlice(deps: SliceDeps): ServersSlice {
  const { set, get, client, incoming } = deps;

  const reorder = async (ids: SubscriptionId[]): Promise<ActionResult<null>> => {
    const before = get().subscriptions;
    const byId = new Map(before.map((s) => [s.id, s]));
    const reordered = ids.map((id) => byId.get(id)).filter((s): s is ListSubscription => s !== undefined);
    // Shown at once; the host's `subscriptions` event confirms it, a refusal puts it back (unless
    // the host has sent a newer list meanwhile).
    const optimistic = reordered.length === before.length ? reordered : before;
    set({ subscriptions: optimistic });
    const result = await request(deps, 'reorder', () => client.reorderSubscriptions({ ids }));
    if (!result.ok && get().subscriptions === optimistic) set({ subscriptions: before });
    return result;
  };

  return {
    ...serversInitialState,
    setSubscriptions: (subscriptions) => set({ subscriptions }),
    patchStatuses: (changed) => {
      incoming.flush();
      if (changed.length > 0) set({ statuses: withStatuses(get().statuses, changed) });
    },
    setUnsupported: (unsupported) => set({ unsupported }),
    addSubscription: async (input) => {
      const result = await request(deps, 'addSubscription', () => client.addSubscription(input), { notify: false });
      if (result.ok) set({ subscriptions: upsert(get().subscriptions, result.value) });
      return result;
    },
    updateSubscription: async (id) => {
      const result = await request(deps, 'updateSubscription', () => client.updateSubscription({ id }));
      if (result.ok) set({ subscriptions: upsert(get().subscriptions, result.value) });
      return result;
    },
    setSubscriptionUserAgent: async (id, userAgent) => {
      const result = await request(deps, 'updateSubscription', () => client.editSubscription({ id, userAgent }), { notify: false });
      if (!result.ok) return result;
      set({ subscriptions: upsert(get().subscriptions, result.value) });
      void get().updateSubscription(id);
      return result;
    },
    removeSubscription: async (id) => {
      const result = await request(deps, 'removeSubscription', () => client.removeSubscription({ id }));
      if (result.ok) set({ subscriptions: get().subscriptions.filter((s) => s.id !== id) });
      return result;
    },
    moveSubscription: (id, delta) => {
      const ids = get().subscriptions.map((s) => s.id);
      const from = ids.indexOf(id);
      const to = Math.max(0, Math.min(ids.length - 1, from + delta));
      if (from === -1 || from === to) return Promise.resolve({ ok: true, value: null });
      ids.splice(from, 1);
      ids.splice(to, 0, id);
      return reorder(ids);
    },
    moveSubscriptionTo: (id, targetId) => {
      const ids = get().subscriptions.map((s) => s.id);
      const from = ids.indexOf(id);
      const to = ids.indexOf(targetId);
      if (from === -1 || to === -1 || from === to) return Promise.resolve({ ok: true, value: null });
      ids.splice(from, 1);
      ids.splice(to, 0, id);
      return reorder(ids);
    },
    reorderSubscriptions: reorder,
    confirmEmptySubscription: async (id) => {
      const result = await request(deps, 'confirmEmpty', () => client.confirmEmptySubscription({ id }));
      if (result.ok) set({ subscriptions: upsert(get().subscriptions, result.value) });
      return result;
    },
    testServer: async (id) => {
      const result = await request(deps, 'testServer', () => client.testServer({ serverId: id }));
      if (result.ok) get().patchStatuses([result.value]);
      return result;
    },
    measureThroughput: async (id) => {
      const result = await request(deps, 'measureThroughput', () => client.measureThroughput({ serverId: id }));
      if (result.ok) get().patchStatuses([result.value]);
      return result;
    },
    measureDirect: async (id, method) => {
      const result = await request(deps, 'measureDirect', () => client.measureDirect({ serverId: id, method }));
      if (!result.ok) return result;
      get().patchStatuses([result.value.status]);
      return { ok: true, value: result.value.outcome };
    },
    loadHistory: async (id) => {
      const result = await request(deps, 'history', () => client.getHistory({ serverId: id }));
      if (result.ok) set({ history: keptHistories(get().history, id, result.value) });
      return result;
    },
    loadServerStatus: (id) => request(deps, 'history', () => client.getServerStatus({ serverId: id }), { notify: false }),
  };
}
