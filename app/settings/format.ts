import { modeFromSystemProxy } from '../../shared/settings';
import { type FileFormat, versionOf } from '../storage/format';

/**
 * Where conf (and electron-store, built on it), which kept settings.json until format 2, wrote
 * the migration it had run: `{"__internal__": {"migrations": {"version": "2.0.0"}}}`.
 */
const CONF_RECORD = '__internal__';

/**
 * The version of a settings file: its `version`, else the one conf recorded (`N.0.0` is format
 * N), else 0 (the first releases wrote none).
 */
function settingsVersionOf(document: Record<string, unknown>): number {
  if ('version' in document) return versionOf(document);
  const record = document[CONF_RECORD] as { migrations?: { version?: unknown } } | undefined;
  const ran = typeof record?.migrations?.version === 'string' ? Number.parseInt(record.migrations.version, 10) : 0;
  return Number.isInteger(ran) && ran >= 0 ? ran : 0;
}

/**
 * The settings file's format. Each change of a field's name or meaning adds a step here,
 * `migrations[n]` turning a version n-1 file into version n, with a test reading a file of the
 * version before (app/settings/settings-file.test.ts, store.test.ts).
 * - 1: the file as the first releases wrote it (every field of the schema, no version);
 * - 2: `systemProxy: boolean` became `mode` (on → `system-proxy`, off → `proxy`).
 * A file conf wrote carries its record instead of `version`; the schema drops the record and the
 * next save writes `version`.
 */
export const SETTINGS_FORMAT: FileFormat = {
  version: 2,
  migrations: {
    1: (unversioned) => unversioned,
    2: modeFromSystemProxy,
  },
  versionOf: settingsVersionOf,
};
