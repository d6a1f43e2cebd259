/** What the headless host accepts from a browser over the WebSocket (wire.ts has the framing). */
import { z } from 'zod';

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
