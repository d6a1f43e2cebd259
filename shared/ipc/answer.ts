/**
 * A refusal as it crosses a transport (the Electron IPC and the headless host's WebSocket): the
 * engine's English sentence, and its refusal code when it has one. Thrown errors lose everything
 * but their text on the way (Electron flattens them to a string), so the code travels beside it.
 * A peer that sends no code, or one this build does not know, still gets its sentence across.
 */
import { EngineRefusal, isRefusalCode, type RefusalCode, refusalCodeOf } from '../domain/refusal';

export interface WireRefusal {
  error: string;
  code?: RefusalCode;
}

/** What an Electron invoke handler answers: the value, or the refusal in words and code. */
export type InvokeAnswer<T = unknown> = { ok: true; value: T } | ({ ok: false } & WireRefusal);

/** The refusal to send for an error thrown while serving a request. */
export function refusalToWire(error: unknown): WireRefusal {
  const message = error instanceof Error ? error.message : String(error);
  const code = refusalCodeOf(error);
  return code ? { error: message, code } : { error: message };
}

/** The error a caller sees for a refusal that arrived: an `EngineRefusal` when its code is known. */
export function refusalFromWire(refusal: { error: string; code?: unknown }): Error {
  return isRefusalCode(refusal.code) ? new EngineRefusal(refusal.code, refusal.error) : new Error(refusal.error);
}

/** The value of an answer, or its refusal thrown. */
export function answerValue<T>(answer: InvokeAnswer<T>): T {
  if (answer.ok) return answer.value;
  throw refusalFromWire(answer);
}
