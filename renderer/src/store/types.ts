import type { StoreApi } from 'zustand/vanilla';
import { type RefusalCode, refusalCodeOf, validationOfError } from '../../../shared/domain/refusal';
import type { ValidationProblem } from '../../../shared/domain/validation';
import type { VpnClient } from '../../../shared/ipc/contract';
import type { AutoSlice } from './auto';
import type { ConnectionSlice } from './connection';
import type { DialogsSlice } from './dialogs';
import type { IncomingBatch } from './incoming';
import type { LabSlice } from './lab';
import type { ImportsSlice } from './imports';
import type { ProblemsSlice } from './problems';
import type { RoutingSlice } from './routing';
import type { ServersSlice } from './servers';
import type { SettingsSlice } from './settings';
import type { SharingSlice } from './sharing';
import type { AppsSlice } from './apps';
import type { SyncSlice } from './sync';
import type { SpeedTestSlice } from './speedTest';
import type { TestProgressSlice } from './testProgress';
import type { NoticeAction, UiSlice } from './ui';

export type AppState = ServersSlice &
  ConnectionSlice &
  AutoSlice &
  DialogsSlice &
  SettingsSlice &
  TestProgressSlice &
  SpeedTestSlice &
  UiSlice &
  LabSlice &
  ProblemsSlice &
  ImportsSlice &
  RoutingSlice &
  SharingSlice &
  AppsSlice &
  SyncSlice;

export type AppStore = StoreApi<AppState>;

/** What every slice is built from: the store's set/get, the contract client and the per-frame batch. */
export interface SliceDeps {
  set: AppStore['setState'];
  get: AppStore['getState'];
  client: VpnClient;
  /** The host's high-rate streams (statuses, test progress), applied once per frame. */
  incoming: IncomingBatch;
}

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
