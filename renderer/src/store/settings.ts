/**
 * The app's settings as the host holds them; changes are validated here before they are sent. Also
 * the cores on the machine (Settings → Cores), asked for when that page is shown.
 */
import type { CoreList } from '../../../shared/domain/cores';
import type { TestTrafficUsage } from '../../../shared/domain/test-traffic';
import { type ValidationProblem, validationOf } from '../../../shared/domain/validation';
import type { Settings, SettingsPatch } from '../../../shared/settings';
// A plain value, not the schemas' output: the schemas (zod) are read only when a change is checked.
import { DEFAULT_SETTINGS } from '../../../shared/settings-defaults';
import { type SliceDeps } from './types';
import { request } from './request';

export type SaveSettingsResult =
  | { ok: true; value: Settings }
  | {
      ok: false;
      error: string;
      /** Field path ("monitor.workers") → what is wrong there, for inline errors worded in the UI language (i18n/validation.ts). */
      fieldErrors: Record<string, ValidationProblem>;
    };

/** The cores as last asked: not yet, being asked, the list, or the host's words why not. */
export type CoreListState = { state: 'idle' } | { state: 'loading' } | { state: 'ready'; list: CoreList } | { state: 'failed'; error: string };

/** What testing used, as last asked (Settings → Testing). */
export type TestTrafficState = { state: 'idle' } | { state: 'ready'; usage: TestTrafficUsage } | { state: 'failed'; error: string };

export interface SettingsSlice {
  settings: Settings;
  coreList: CoreListState;
  testTraffic: TestTrafficState;
  /** Asks the host what testing used in the last hour and day. */
  loadTestTraffic(): Promise<void>;
  setSettingsState(settings: Settings): void;
  saveSettings(patch: SettingsPatch): Promise<SaveSettingsResult>;
  /** Asks the host for the cores on the machine (each identified by its own binary: it may take seconds). */
  loadCores(): Promise<void>;
}

export const settingsInitialState: Pick<SettingsSlice, 'settings' | 'coreList' | 'testTraffic'> = { settings: DEFAULT_SETTINGS, coreList: { state: 'idle' }, testTraffic: { state: 'idle' } };

/** Field path as the dialog keys its inline errors ("routing.rules.0.ip.1"). */
export const fieldPathOf = (path: readonly (string | number)[]) => path.map(String).join('.') || 'settings';

/**
 * Checks a patch against the contract's schema; field path → problem for each problem. The schemas
 * are read on the first change the user makes, not before the window's first frame.
 */
export async function validateSettingsPatch(patch: unknown): Promise<{ ok: true; patch: SettingsPatch } | { ok: false; fieldErrors: Record<string, ValidationProblem> }> {
  const { settingsPatchSchema } = await import('../../../shared/settings');
  const parsed = settingsPatchSchema.safeParse(patch);
  if (parsed.success) return { ok: true, patch: patch as SettingsPatch };
  const fieldErrors: Record<string, ValidationProblem> = {};
  for (const issue of parsed.error.issues) fieldErrors[fieldPathOf(issue.path.map((k) => (typeof k === 'number' ? k : String(k))))] ??= validationOf(issue, issue.message);
  return { ok: false, fieldErrors };
}

export function createSettingsSlice(deps: SliceDeps): SettingsSlice {
  const { set, client } = deps;
  return {
    ...settingsInitialState,
    setSettingsState: (settings) => set({ settings }),
    saveSettings: async (patch) => {
      const valid = await validateSettingsPatch(patch);
      if (!valid.ok) return { ok: false, error: 'invalid', fieldErrors: valid.fieldErrors };
      // The patch as the user wrote it (not zod's output) so defaults never sneak into it.
      const result = await request(deps, 'settings', () => client.setSettings(valid.patch), { notify: false });
      // The engine's own check refused a value: it is marked at its field like the window's own.
      if (!result.ok) return { ...result, fieldErrors: result.validation ? { [fieldPathOf(result.validation.path)]: result.validation } : {} };
      set({ settings: result.value });
      return result;
    },
    loadTestTraffic: async () => {
      const result = await request(deps, 'settings', () => client.testTraffic({}), { notify: false });
      set({ testTraffic: result.ok ? { state: 'ready', usage: result.value } : { state: 'failed', error: result.error } });
    },
    loadCores: async () => {
      // A list on screen stays while it is asked again; only a first ask shows "looking".
      if (deps.get().coreList.state !== 'ready') set({ coreList: { state: 'loading' } });
      const result = await request(deps, 'settings', () => client.listCores({}), { notify: false });
      set({ coreList: result.ok ? { state: 'ready', list: result.value } : { state: 'failed', error: result.error } });
    },
  };
}
