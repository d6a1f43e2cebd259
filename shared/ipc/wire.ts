/**
 * The contract over a WebSocket (the headless host and the browser client): requests carry an id,
 * the host answers each id once, and pushes events unasked.
 */
import { z } from 'zod';
import type { WireRefusal } from './answer';
import type { ServerId } from '../domain/server';
import type { AppSnapshot, EventName, EventPayloads, InvokeChannel, InvokeResponses, ListStatus } from './contract';

/** Largest message the host accepts from a browser (a pasted subscription fits). */
export const MAX_CLIENT_MESSAGE_BYTES = 17 * 1024 * 1024;

export const clientMessageSchema = z
  .object({
    kind: z.literal('invoke'),
    id: z.number().int().nonnegative(),
    channel: z.string().min(1).max(64),
    payload: z.unknown(),
  })
  .strict();
export type ClientMessage = z.infer<typeof clientMessageSchema>;

export type HostMessage =
  | { kind: 'result'; id: number; ok: true; value: InvokeResponses[InvokeChannel] }
  /** A refusal: the engine's sentence and, when it has one, its code (an older host sends none). */
  | ({ kind: 'result'; id: number; ok: false } & WireRefusal)
  | { [E in EventName]: { kind: 'event'; event: E; payload: EventPayloads[E] } }[EventName];

/** The query parameter that carries the host's per-run token. */
export const TOKEN_PARAM = 'token';
/** The WebSocket path on the headless host. */
export const WS_PATH = '/ws';

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
  return { ...UNTESTED, ...status };
}

function snapshotStatuses(snapshot: AppSnapshot, convert: (status: never) => unknown): AppSnapshot {
  if (typeof snapshot?.statuses !== 'object' || snapshot.statuses === null) return snapshot; // not a snapshot: left to its reader
  const statuses: Record<ServerId, unknown> = {};
  for (const [id, status] of Object.entries(snapshot.statuses)) statuses[id] = convert(status as never);
  return { ...snapshot, statuses } as AppSnapshot;
}

/** What an answer carries over the WebSocket: the snapshot's statuses compacted. */
export function resultToWire(channel: InvokeChannel, value: unknown): unknown {
  return channel === 'getSnapshot' ? snapshotStatuses(value as AppSnapshot, statusToWire) : value;
}

export function resultFromWire(channel: InvokeChannel, value: unknown): unknown {
  return channel === 'getSnapshot' ? snapshotStatuses(value as AppSnapshot, statusFromWire) : value;
}

/** What an event carries over the WebSocket: statuses compacted, in the stream and in a snapshot. */
export function eventToWire(event: EventName, payload: unknown): unknown {
  if (event === 'statuses') return (payload as ListStatus[]).map(statusToWire);
  return event === 'snapshot' ? snapshotStatuses(payload as AppSnapshot, statusToWire) : payload;
}

export function eventFromWire(event: EventName, payload: unknown): unknown {
  if (event === 'statuses') return (payload as WireStatus[]).map(statusFromWire);
  return event === 'snapshot' ? snapshotStatuses(payload as AppSnapshot, statusFromWire) : payload;
}
