/**
 * The contract over a WebSocket (the headless host and the browser client): requests carry an id,
 * the host answers each id once, and pushes events unasked.
 */
import { z } from 'zod';
import type { WireRefusal } from './answer';
import type { EventName, EventPayloads, InvokeChannel, InvokeResponses } from './contract';

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
