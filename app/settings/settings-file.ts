import { join } from 'node:path';
import { type ConnectionMode, DEFAULT_SETTINGS, type Settings, storedSettingsSchema } from '../../shared/settings';
import type { FileFormat } from '../storage/format';
import { JsonFile } from '../storage/json-file';
import type { ProblemSink } from '../storage/problem-sink';
import { SETTINGS_FORMAT } from './format';

export interface SettingsFileOptions {
  dataDir: string;
  format?: FileFormat;
  /** The connection mode of a first start (or of a file that never named one): hosts differ. */
  defaultMode?: ConnectionMode;
  /** Where a failed save is put for the user. */
  problems?: ProblemSink;
  /** Injected for tests: the time used in set-aside names. */
  now?: () => number;
}

/**
 * `<dataDir>/settings.json` (0600), a JsonFile like every other file of the data folder, so one
 * runner owns its migrations (SETTINGS_FORMAT, reading the files conf and electron-store wrote
 * before), its atomic writes and `settings.json.bak`; a file that does not parse, validate or
 * migrate, or that a newer release wrote, is set aside as `.corrupt-<time>` (never deleted) and the
 * backup or the defaults are used. Start-up never fails on it.
 */
export class SettingsFile extends JsonFile<Settings> {
  constructor(options: SettingsFileOptions) {
    const defaultMode = options.defaultMode ?? DEFAULT_SETTINGS.mode;
    const defaults: Settings = Object.freeze({ ...DEFAULT_SETTINGS, mode: defaultMode });
    super({
      path: join(options.dataDir, 'settings.json'),
      schema: storedSettingsSchema(defaultMode),
      format: options.format ?? SETTINGS_FORMAT,
      fallback: () => defaults,
      mode: 0o600,
      now: options.now,
      problems: options.problems,
    });
  }
}
