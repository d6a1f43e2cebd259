/** How a slice asks the host: one request, its failure a notice and an `ok: false` result. */
import { type RefusalCode, refusalCodeOf, validationOfError } from '../../../shared/domain/refusal';
import type { ValidationProblem } from '../../../shared/domain/validation';
import type { SliceDeps } from './types';
import type { NoticeAction } from './ui';

/**
 * An action's outcome, for dialogs that show the host's error inline: its words, and the refusal's
 * code when the engine named one (the window says that in the user's language, see refusalText).
 */
export type ActionResult<T> = { ok: true; value: T } | { ok: false; error: string; code?: RefusalCode; validation?: ValidationProblem };

/**
 * Runs one request to the host. A failure becomes a notice the user sees (unless the caller shows
 * it inline) and an `ok: false` result, never an unhandled rejection.
 */
export async function request<T>(
  deps: SliceDeps,
  what: NoticeAction,
  run: () => Promise<T>,
  options: { notify?: boolean } = {},
): Promise<ActionResult<T>> {
  try {
    return { ok: true, value: await run() };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    const code = refusalCodeOf(error);
    const validation = validationOfError(error);
    const refusal = code ? { error: message, code, ...(validation ? { validation } : {}) } : { error: message };
    if (options.notify !== false) deps.get().pushNotice({ tone: 'error', what, text: message, ...(code ? { code } : {}) });
    return { ok: false, ...refusal };
  }
}
