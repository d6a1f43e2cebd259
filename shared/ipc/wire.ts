/**
 * The contract over a WebSocket (the headless host and the browser client): requests carry an id,
 * the host answers each id once, and pushes events unasked. What the host checks of a browser's
 * message is in client-message.ts (with zod, which the window's first bundle goes without).
 */
import type { WireRefusal } from './answer';
import type { ServerId } from '../domain/server';
import type { AppSnapshot, EventName, EventPayloads, InvokeChannel, InvokeResponses, ListServer, ListStatus, ListSubscription } from './contract';
import { type Columns, fromColumns, toColumns } from './columns';

export type HostMessage =
  | { kind: 'result'; id: number; ok: true; value: InvokeResponses[InvokeChannel] }
  /** A refusal: the engine's sentence and, when it has one, its code (an older host sends none). */
  | ({ kind: 'result'; id: number; ok: false } & WireRefusal)
  | { [E in EventName]: { kind: 'event'; event: E; payload: EventPayloads[E] } }[EventName];

/** The query parameter that carries the host's per-run token. */
export const TOKEN_PARAM = 'token';
/** The WebSocket path on the headless host. */
export const WS_PATH = '/ws';

/**
 * The query parameter by which a client asks for the snapshot as its socket's first frame (an
 * `event` "snapshot", pushed as soon as the connection is made). The window asks: it then need not
 * wait for its own main thread to see the socket open and send a request, which with 5,000
 * servers was most of its first render. Other clients get only what they ask for.
 */
export const SNAPSHOT_ON_OPEN_PARAM = 'snapshot';
export const SNAPSHOT_ON_OPEN = 'on-open';

/** An untested server's status: over the WebSocket a status carries only the fields that differ. */
const UNTESTED: Omit<ListStatus, 'serverId'> = {
  delayMs: null,
  testedAt: null,
  fromCache: false,
  error: null,
  testing: false,
  downForNow: false,
  notReady: null,
  ipInfo: null,
  throughputBps: null,
  // The monitor writes it for every server (null until a download ran).
  throughputTest: null,
  reachability: null,
  ipv6: null,
  transfer: null,
  speedTest: null,
};

/** A status as the WebSocket carries it (5,000 untested servers are 5,000 ids, not 5,000 × 12 fields). */
export type WireStatus = Partial<ListStatus> & { serverId: ServerId };

export function statusToWire(status: ListStatus): WireStatus {
  const wire: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(status)) if (UNTESTED[key as keyof typeof UNTESTED] !== value) wire[key] = value;
  return wire as WireStatus;
}

export function statusFromWire(status: WireStatus): ListStatus {
  return Object.assign({}, UNTESTED, status) as ListStatus;
}

/** A subscription as the WebSocket carries it: its servers in columns (columns.ts). */
export type WireSubscription = Omit<ListSubscription, 'servers'> & { servers: Columns };

/**
 * Every status of a snapshot in columns. Its rows are the listed servers' in list order (their ids
 * are in the servers' columns already), less those at `absent` (places in that order) that have no
 * status, then the `extra` ids of statuses no subscription lists.
 */
export interface WireStatusColumns {
  table: Columns;
  absent?: number[];
  extra?: ServerId[];
}

/**
 * The snapshot as the WebSocket carries it: the server list and the statuses in columns. With
 * 5,000 servers, each server's field names and subscription id and each untested status were most
 * of its bytes, and the page had to parse them before it could draw a row.
 */
export type WireSnapshot = Omit<AppSnapshot, 'subscriptions' | 'statuses'> & { subscriptions: WireSubscription[]; statusColumns: WireStatusColumns };

/**
 * Each subscription's wire form, by the object it was made from. The engine hands out the same
 * ListSubscription objects until the list changes (ServerCatalog.listed), and treats them as
 * immutable, so 5,000 servers are put in columns once per change, not once per window or event.
 */
const wireSubscriptions = new WeakMap<ListSubscription, WireSubscription>();

export function subscriptionToWire(subscription: ListSubscription): WireSubscription {
  let wire = wireSubscriptions.get(subscription);
  if (wire === undefined) {
    wire = { ...subscription, servers: toColumns(subscription.servers, { subscriptionId: subscription.id }) };
    wireSubscriptions.set(subscription, wire);
  }
  return wire;
}

/** A subscription back from the wire; one in the older form (servers as objects) is read as it is. */
export function subscriptionFromWire(subscription: WireSubscription | ListSubscription): ListSubscription {
  if (Array.isArray(subscription.servers)) return subscription as ListSubscription;
  return { ...subscription, servers: fromColumns<ListServer>(subscription.servers, { subscriptionId: subscription.id }) };
}

function listedIds(subscriptions: readonly { servers: readonly { id: ServerId }[] }[]): ServerId[] {
  const ids = new Set<ServerId>();
  for (const subscription of subscriptions) for (const server of subscription.servers) ids.add(server.id);
  return [...ids];
}

export function snapshotToWire(snapshot: AppSnapshot): WireSnapshot {
  const { subscriptions, statuses, ...rest } = snapshot;
  const listed = listedIds(subscriptions);
  const absent: number[] = [];
  const rows: ListStatus[] = [];
  listed.forEach((id, place) => {
    const status = Object.prototype.hasOwnProperty.call(statuses, id) ? statuses[id] : undefined;
    if (status === undefined) absent.push(place);
    else rows.push(status);
  });
  const listedSet = new Set(listed);
  const extra = Object.keys(statuses).filter((id) => !listedSet.has(id));
  for (const id of extra) rows.push(statuses[id]!);
  const absentSet = new Set(absent);
  const rowIds = [...listed.filter((_, place) => !absentSet.has(place)), ...extra];
  // Each status's id is its row's: written again only if one ever differed.
  const idsAgree = rows.every((status, row) => status.serverId === rowIds[row]);
  const statusColumns: WireStatusColumns = { table: toColumns(rows, UNTESTED, idsAgree ? ['serverId'] : []) };
  if (absent.length > 0) statusColumns.absent = absent;
  if (extra.length > 0) statusColumns.extra = extra;
  return { ...rest, subscriptions: subscriptions.map(subscriptionToWire), statusColumns };
}

/** A snapshot back from the wire; one in the older form (a status object per server) is read too. */
export function snapshotFromWire(wire: WireSnapshot | AppSnapshot): AppSnapshot {
  if (!('statusColumns' in wire)) return snapshotStatuses(wire, statusFromWire);
  const { statusColumns, subscriptions: wireSubscriptions, ...rest } = wire;
  const subscriptions = wireSubscriptions.map(subscriptionFromWire);
  const absent = new Set(statusColumns.absent ?? []);
  const rowIds = [...listedIds(subscriptions).filter((_, place) => !absent.has(place)), ...(statusColumns.extra ?? [])];
  if (rowIds.length !== statusColumns.table.rows) throw new Error(`the snapshot has ${statusColumns.table.rows} statuses for ${rowIds.length} servers`);
  const rows = fromColumns<ListStatus>(statusColumns.table, UNTESTED, (row) => ({ serverId: rowIds[row] }));
  const statuses: Record<ServerId, ListStatus> = {};
  rows.forEach((status, row) => (statuses[rowIds[row]!] = status));
  return { ...rest, subscriptions, statuses };
}

function snapshotStatuses(snapshot: AppSnapshot, convert: (status: never) => unknown): AppSnapshot {
  if (typeof snapshot?.statuses !== 'object' || snapshot.statuses === null) return snapshot; // not a snapshot: left to its reader
  const statuses: Record<ServerId, unknown> = {};
  for (const [id, status] of Object.entries(snapshot.statuses)) statuses[id] = convert(status as never);
  return { ...snapshot, statuses } as AppSnapshot;
}

function isSnapshot(value: unknown): value is AppSnapshot {
  const snapshot = value as Partial<AppSnapshot> | null;
  return typeof snapshot === 'object' && snapshot !== null && Array.isArray(snapshot.subscriptions) && typeof snapshot.statuses === 'object' && snapshot.statuses !== null;
}

function isWireSnapshot(value: unknown): value is WireSnapshot | AppSnapshot {
  const snapshot = value as Partial<WireSnapshot> | null;
  return typeof snapshot === 'object' && snapshot !== null && Array.isArray(snapshot.subscriptions) && (typeof snapshot.statusColumns === 'object' || isSnapshot(value));
}

/** What an answer carries over the WebSocket: the snapshot in columns. */
export function resultToWire(channel: InvokeChannel, value: unknown): unknown {
  return channel === 'getSnapshot' && isSnapshot(value) ? snapshotToWire(value) : value;
}

export function resultFromWire(channel: InvokeChannel, value: unknown): unknown {
  return channel === 'getSnapshot' && isWireSnapshot(value) ? snapshotFromWire(value) : value;
}

/** What an event carries over the WebSocket: statuses compacted, a snapshot and the server list in columns. */
export function eventToWire(event: EventName, payload: unknown): unknown {
  if (event === 'statuses') return (payload as ListStatus[]).map(statusToWire);
  if (event === 'subscriptions') return (payload as ListSubscription[]).map(subscriptionToWire);
  return event === 'snapshot' && isSnapshot(payload) ? snapshotToWire(payload) : payload;
}

export function eventFromWire(event: EventName, payload: unknown): unknown {
  if (event === 'statuses') return (payload as WireStatus[]).map(statusFromWire);
  if (event === 'subscriptions') return (payload as WireSubscription[]).map(subscriptionFromWire);
  return event === 'snapshot' && isWireSnapshot(payload) ? snapshotFromWire(payload) : payload;
}
