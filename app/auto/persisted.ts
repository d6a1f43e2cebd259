/** The file format of Auto's persisted state (marks, return candidate, the subscription Auto is on for). */
import { z } from 'zod';
import type { PersistedAutoState } from './policy/state';

export const persistedAutoStateSchema: z.ZodType<PersistedAutoState> = z.object({
  subscriptionId: z.string().min(1).nullable(),
  excluded: z.record(z.string(), z.array(z.string().min(1))),
  returnCandidate: z.string().min(1).nullable(),
});

export { NOTHING_PERSISTED } from './policy/state';
