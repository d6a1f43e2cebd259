/**
 * A refusal as it crosses a transport (the Electron IPC and the headless host's WebSocket): the
 * engine's English sentence, and its refusal code when it has one. Thrown errors lose everything
 * but their text on the way (Electron's IPC flattens them to a string, its contextBridge keeps
 * only their message), so under Electron an operation answers an `InvokeAnswer` all the way to
 * the page, which throws the refusal again in its own world. A peer that sends no code, or one
 * this build does not know, still gets its sentence across.
 */
import { EngineRefusal, isRefusalCode, type RefusalCode, refusalCodeOf, validationOfError } from '../domain/refusal';
import { type ValidationProblem, validationFromWire } from '../domain/validation';
import { INVOKE_CHANNELS } from './channels';
import type { EventName, EventPayloads, InvokeChannel, InvokeRequest, InvokeResponses, VpnClient } from './contract';

export interface WireRefusal {
  error: string;
  code?: RefusalCode;
  /** With `invalid-setting`: the refused value as a topic and parameters, for the window to word. */
  validation?: ValidationProblem;
}

/** What an Electron invoke handler answers: the value, or the refusal in words and code. */
export type InvokeAnswer<T = unknown> = { ok: true; value: T } | ({ ok: false } & WireRefusal);

/** The refusal to send for an error thrown while serving a request. */
export function refusalToWire(error: unknown): WireRefusal {
  const message = error instanceof Error ? error.message : String(error);
  const code = refusalCodeOf(error);
  const validation = validationOfError(error);
  return code ? { error: message, code, ...(validation ? { validation } : {}) } : { error: message };
}

/** The error a caller sees for a refusal that arrived: an `EngineRefusal` when its code is known. */
export function refusalFromWire(refusal: { error: string; code?: unknown; validation?: unknown }): Error {
  return isRefusalCode(refusal.code) ? new EngineRefusal(refusal.code, refusal.error, validationFromWire(refusal.validation)) : new Error(refusal.error);
}

/** The value of an answer, or its refusal thrown. */
export function answerValue<T>(answer: InvokeAnswer<T>): T {
  if (answer.ok) return answer.value;
  throw refusalFromWire(answer);
}

/** An operation's outcome as an answer: its value, or what it threw as a refusal. */
export async function answerOf<T>(run: () => Promise<T>): Promise<InvokeAnswer<T>> {
  try {
    return { ok: true, value: await run() };
  } catch (error) {
    return { ok: false, ...refusalToWire(error) };
  }
}

/**
 * What Electron's preload exposes as `window.vpn`: one function per operation answering an
 * `InvokeAnswer`, plus `on(event, listener)`.
 */
export type BridgeApi = { [C in InvokeChannel]: (request: InvokeRequest<C>) => Promise<InvokeAnswer<InvokeResponses[C]>> } & {
  on<E extends EventName>(event: E, listener: (payload: EventPayloads[E]) => void): () => void;
};

/** The page's client over the preload's bridge: each answer's value, or its refusal thrown here. */
export function clientOverBridge(bridge: BridgeApi): VpnClient {
  const client: Record<string, unknown> = { on: bridge.on.bind(bridge) };
  for (const channel of INVOKE_CHANNELS) {
    const operation = bridge[channel] as (request: unknown) => Promise<InvokeAnswer>;
    client[channel] = async (request: unknown) => answerValue(await operation(request));
  }
  return client as unknown as VpnClient;
}

/** A bridge over a client, as the preload is over the main process (the preview's stand-in host). */
export function bridgeOver(client: VpnClient): BridgeApi {
  const bridge: Record<string, unknown> = { on: client.on.bind(client) };
  for (const channel of INVOKE_CHANNELS) {
    const operation = client[channel] as (request: unknown) => Promise<unknown>;
    bridge[channel] = (request: unknown) => answerOf(() => operation.call(client, request));
  }
  return bridge as unknown as BridgeApi;
}
