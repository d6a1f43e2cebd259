/** The app's settings as the host holds them; changes are validated here before they are sent. */
import { DEFAULT_SETTINGS, type Settings, type SettingsPatch, settingsPatchSchema } from '../../../shared/settings';
import { request, type SliceDeps } from './types';

export type SaveSettingsResult =
  | { ok: true; value: Settings }
  | { ok: false; error: string; /** Field path ("monitor.workers") → message, for inline errors. */ fieldErrors: Record<string, string> };

export interface SettingsSlice {
  settings: Settings;
  setSettingsState(settings: Settings): void;
  saveSettings(patch: SettingsPatch): Promise<SaveSettingsResult>;
}

export const settingsInitialState: Pick<SettingsSlice, 'settings'> = { settings: DEFAULT_SETTINGS };

/** Checks a patch against the contract's schema; field path → message for each problem. */
export function validateSettingsPatch(patch: unknown): { ok: true; patch: SettingsPatch } | { ok: false; fieldErrors: Record<string, string> } {
  const parsed = settingsPatchSchema.safeParse(patch);
  if (parsed.success) return { ok: true, patch: patch as SettingsPatch };
  const fieldErrors: Record<string, string> = {};
  for (const issue of parsed.error.issues) {
    const path = issue.path.map(String).join('.') || 'settings';
    fieldErrors[path] ??= issue.message;
  }
  return { ok: false, fieldErrors };
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
  };
}
