/** The file format of Auto's persisted state (marks, return candidate, the subscription Auto is on for). */
import { join } from 'node:path';
import { z } from 'zod';
import { FIRST_FORMAT_FROM_UNVERSIONED } from '../storage/format';
import { JsonFile } from '../storage/json-file';
import type { ProblemSink } from '../storage/problem-sink';
import { NOTHING_PERSISTED, type PersistedAutoState } from './policy/state';

export const persistedAutoStateSchema: z.ZodType<PersistedAutoState> = z.object({
  subscriptionId: z.string().min(1).nullable(),
  excluded: z.record(z.string(), z.array(z.string().min(1))),
  returnCandidate: z.string().min(1).nullable(),
});

/** `<dataDir>/auto.json`; the first releases wrote it without a version. */
/** `problems`: where a failed save is put for the user. */
export function autoStateFile(dataDir: string, problems?: ProblemSink): JsonFile<PersistedAutoState> {
  return new JsonFile({ path: join(dataDir, 'auto.json'), schema: persistedAutoStateSchema, format: FIRST_FORMAT_FROM_UNVERSIONED, fallback: () => NOTHING_PERSISTED, problems });
}

export { NOTHING_PERSISTED };
