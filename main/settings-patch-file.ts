/**
 * `--settings FILE` for `connect --auto` and the headless host: a JSON settings patch (the fields
 * the UI's Settings would change, e.g. the monitor's test, IP-info and transfer-test URLs) applied
 * at start over the profile's settings. The flags of the command win over the file. Nothing is
 * started with a file that does not validate; every invalid field is named.
 */
import { readBoundedJson } from './json-input';
import { type SettingsPatch, settingsPatchSchema } from '../shared/settings';
import { issueLines } from '../shared/zod-issues';

/** A settings patch is a few kilobytes; anything near this is not one. */
export const SETTINGS_FILE_MAX_BYTES = 1024 * 1024;

export class SettingsFileError extends Error {}

export async function readSettingsFile(path: string): Promise<SettingsPatch> {
  const json = await readBoundedJson(path, 'settings', SETTINGS_FILE_MAX_BYTES, (message) => new SettingsFileError(message));
  const parsed = settingsPatchSchema.safeParse(json);
  if (!parsed.success) {
    throw new SettingsFileError(`the settings file ${path} is not valid:\n  ${issueLines(parsed.error, { whole: '(the file)' }).join('\n  ')}`);
  }
  return parsed.data;
}
