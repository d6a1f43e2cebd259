import { invokeSchemas, isInvokeChannel, parseRequest } from '../../../shared/ipc/contract';
import { clientMessageSchema } from '../../../shared/ipc/client-message';
import type { IpcInput } from '../gen/ipc';
import { ensure, ensureClearError, show } from './violation';

/** A request for any channel name: a validated request, or an Error naming the channel and the field. */
export function checkIpcRequest({ channel, payload }: IpcInput): void {
  let parsed: unknown;
  try {
    parsed = parseRequest(channel as never, payload);
  } catch (error) {
    ensureClearError(error, isInvokeChannel(channel) ? `invalid ${channel} request: ` : 'unknown channel "');
    return;
  }
  ensure(isInvokeChannel(channel), () => `the unknown channel ${show(channel)} was accepted`);
  const again = invokeSchemas[channel].safeParse(parsed);
  ensure(again.success, () => `the accepted ${channel} request does not validate again: ${show(parsed)}`);
}

export type FrameVerdict = { valid: false; id: number | null } | { valid: true; id: number };

/** What the host must answer a frame with, by the contract: which frames are valid, and the id to answer. */
export function frameVerdict(frame: string): FrameVerdict {
  let json: unknown;
  try {
    json = JSON.parse(frame);
  } catch {
    return { valid: false, id: null };
  }
  const message = clientMessageSchema.safeParse(json);
  if (!message.success) return { valid: false, id: null };
  const { id, channel, payload } = message.data;
  if (!isInvokeChannel(channel)) return { valid: false, id };
  return invokeSchemas[channel].safeParse(payload).success ? { valid: true, id } : { valid: false, id };
}

/** The framing schema alone: any frame text is JSON or not, and a message or not, without throwing. */
export function checkWireFrame(frame: string): void {
  const verdict = frameVerdict(frame);
  ensure(verdict.id === null || (Number.isInteger(verdict.id) && verdict.id >= 0), () => `id ${show(verdict.id)}`);
}
