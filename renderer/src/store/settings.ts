/**
 * The app's settings as the host holds them; changes are validated here before they are sent. Also
 * the cores on the machine (Settings → Cores), asked for when that page is shown.
 */
import type { CoreList } from '../../../shared/domain/cores';
import type { TestTrafficUsage } from '../../../shared/domain/test-traffic';
import { DEFAULT_SETTINGS, type Settings, type SettingsPatch, settingsPatchSchema } from '../../../shared/settings';
import { issuesByPlace } from '../../../shared/zod-issues';
import { request, type SliceDeps } from './types';

export type SaveSettingsResult =
  | { ok: true; value: Settings }
  | { ok: false; error: string; /** Field path ("monitor.workers") → message, for inline errors. */ fieldErrors: Record<string, string> };

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

/** Checks a patch against the contract's schema; field path → message for each problem. */
export function validateSettingsPatch(patch: unknown): { ok: true; patch: SettingsPatch } | { ok: false; fieldErrors: Record<string, string> } {
  const parsed = settingsPatchSchema.safeParse(patch);
  if (parsed.success) return { ok: true, patch: patch as SettingsPatch };
  return { ok: false, fieldErrors: issuesByPlace(parsed.error, { whole: 'settings' }) };
}

export function createSettingsSlice(deps: SliceDeps): SettingsSlice {
  const { set, client } = deps;
  return {
    ...settingsInitialState,
    setSettingsState: (settings) => set({ settings }),
    saveSettings: async (patch) => {
      const valid = validateSettingsPatch(patch);
      if (!valid.ok) return { ok: false, error: 'invalid', fieldErrors: valid.fieldErrors };
      // The patch as the user wrote it (not zod's output) so defaults never sneak into it.
      const result = await request(deps, 'settings', () => client.setSettings(valid.patch), { notify: false });
      if (!result.ok) return { ...result, fieldErrors: {} };
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
