/**
 * `--settings FILE` for `connect --auto`: a JSON settings patch (the fields the UI's Settings
 * would change, e.g. the monitor's test, IP-info and transfer-test URLs) applied for the run over
 * the profile's settings. The flags of the command win over the file. Nothing is started with a
 * file that does not validate; every invalid field is named.
 */
import { readFile, stat } from 'node:fs/promises';
import { type SettingsPatch, settingsPatchSchema } from '../../../shared/settings';

/** A settings patch is a few kilobytes; anything near this is not one. */
export const SETTINGS_FILE_MAX_BYTES = 1024 * 1024;

export class SettingsFileError extends Error {}

export async function readSettingsFile(path: string): Promise<SettingsPatch> {
  let size: number;
  try {
    size = (await stat(path)).size;
  } catch (error) {
    throw new SettingsFileError(`cannot read the settings file ${path}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
  }
  if (size > SETTINGS_FILE_MAX_BYTES) {
    throw new SettingsFileError(`the settings file ${path} is ${(size / 1024 / 1024).toFixed(1)} MB; at most ${SETTINGS_FILE_MAX_BYTES / 1024 / 1024} MB is read`);
  }
  let json: unknown;
  try {
    json = JSON.parse(await readFile(path, 'utf8'));
  } catch (error) {
    throw new SettingsFileError(`the settings file ${path} is not JSON: ${error instanceof Error ? error.message : String(error)}`);
  }
  const parsed = settingsPatchSchema.safeParse(json);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((issue) => `${issue.path.length > 0 ? issue.path.join('.') : '(the file)'}: ${issue.message}`);
    throw new SettingsFileError(`the settings file ${path} is not valid:\n  ${issues.join('\n  ')}`);
  }
  return parsed.data;
}
