/** The file format of the server groups' picks, by group name (`<dataDir>/group-picks.json`), kept as Auto's state is. */
import { join } from 'node:path';
import { z } from 'zod';
import { FIRST_FORMAT } from '../storage/format';
import { JsonFile } from '../storage/json-file';
import type { ProblemSink } from '../storage/problem-sink';
import type { PersistedGroupPick } from './groups';

export interface PersistedGroupPicks {
  groups: Record<string, PersistedGroupPick>;
}

const pickSchema: z.ZodType<PersistedGroupPick> = z.object({
  pick: z.string().min(1).nullable(),
  excluded: z.array(z.string().min(1)),
  returnCandidate: z.string().min(1).nullable(),
});

export const persistedGroupPicksSchema: z.ZodType<PersistedGroupPicks> = z.object({ groups: z.record(z.string(), pickSchema) });

export function groupPicksFile(dataDir: string, problems?: ProblemSink): JsonFile<PersistedGroupPicks> {
  return new JsonFile({ path: join(dataDir, 'group-picks.json'), schema: persistedGroupPicksSchema, format: FIRST_FORMAT, fallback: () => ({ groups: {} }), problems });
}
