import { modeFromSystemProxy } from '../../shared/settings';
import type { FileFormat } from '../storage/format';

/**
 * The settings file's format. Each change of a field's name or meaning adds a step here,
 * `migrations[n]` turning a version n-1 file into version n, with a test reading a file of the
 * version before (app/settings/settings-file.test.ts, store.test.ts).
 * - 1: the file as the first releases wrote it (every field of the schema, no version);
 * - 2: `systemProxy: boolean` became `mode` (on → `system-proxy`, off → `proxy`).
 */
export const SETTINGS_FORMAT: FileFormat = {
  version: 2,
  migrations: {
    1: (unversioned) => unversioned,
    2: modeFromSystemProxy,
  },
};
