/**
 * The engine's refusals the window says in the user's language: a closed set of codes, each thrown
 * as an `EngineRefusal` carrying the code and the engine's English sentence (what the log says,
 * and the details the window shows beside the translated one). A refusal without a code, or with a
 * code this build does not know (a newer peer), is shown in the engine's words.
 */
import type { ValidationProblem } from './validation';

export const REFUSAL_CODES = [
  /** Connect with no server named and no Auto subscription to choose from. */
  'no-server-chosen',
  /** The chosen server needs what the installed core cannot do (the message says what). */
  'server-unsupported',
  /** A server id that is not (or no longer) in any subscription. */
  'no-such-server',
  /** A subscription id that is not (or no longer) in the list. */
  'no-such-subscription',
  /** Marking the last unmarked server of the Auto subscription: Auto needs one it may take. */
  'last-unmarked-server',
  /** A server group's name that is not (or no longer) in the settings. */
  'no-such-group',
  /** System-wide mode asked of a host that cannot start the privileged capture helper. */
  'system-wide-unavailable',
  /** Reading a QR code from the screen outside the desktop app. */
  'screen-reading-unavailable',
  /** The Lab panel's controls outside the demo. */
  'lab-unavailable',
  /** Text in the import box that is no address, share link, import link or subscription body (the message says why). */
  'nothing-to-import',
  /** An import's first fetch failed or brought no server, so nothing was added (the import request says why). */
  'subscription-not-added',
  /** A speed test asked for while one is under way. */
  'speed-test-running',
  /** A speed test of a selection or subscription without servers. */
  'nothing-to-speed-test',
  /** A settings change with a value the settings refuse: the refusal carries the problem (shared/domain/validation.ts). */
  'invalid-setting',
] as const;

export type RefusalCode = (typeof REFUSAL_CODES)[number];

const KNOWN: ReadonlySet<string> = new Set(REFUSAL_CODES);

export function isRefusalCode(value: unknown): value is RefusalCode {
  return typeof value === 'string' && KNOWN.has(value);
}

/** A request the engine refused, for a reason the window can name in the user's language. */
export class EngineRefusal extends Error {
  constructor(
    readonly code: RefusalCode,
    message: string,
    /** For `invalid-setting`: the value refused, for the window to word and to mark its field. */
    readonly validation?: ValidationProblem,
  ) {
    super(message);
    this.name = 'EngineRefusal';
  }
}

/** The validation problem an error carries, when it is a refusal with one. */
export function validationOfError(error: unknown): ValidationProblem | undefined {
  return error instanceof EngineRefusal ? error.validation : undefined;
}

/** The code an error carries, when it is a refusal with a code this build knows. */
export function refusalCodeOf(error: unknown): RefusalCode | undefined {
  const code = error !== null && typeof error === 'object' ? (error as { code?: unknown }).code : undefined;
  return isRefusalCode(code) ? code : undefined;
}
