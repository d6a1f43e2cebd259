/** "Test all" and how far it has got. */
import type { TestProgress } from '../../../shared/ipc/contract';
import { type AppState, type SliceDeps } from './types';
import { type ActionResult, request } from './request';

export interface TestProgressSlice {
  testProgress: TestProgress;
  setTestProgress(progress: TestProgress): void;
  testAll(): Promise<ActionResult<null>>;
}

export const testProgressInitialState: Pick<TestProgressSlice, 'testProgress'> = {
  testProgress: { running: false, done: 0, total: 0 },
};

export function createTestProgressSlice(deps: SliceDeps): TestProgressSlice {
  const { set, get, client, incoming } = deps;
  return {
    ...testProgressInitialState,
    setTestProgress: (testProgress) => {
      incoming.flush();
      set({ testProgress });
    },
    testAll: async () => {
      // Shown as started at once; the host's progress events take over from here (progress still
      // queued for the next frame is older than this click, so it lands first, not over it).
      incoming.flush();
      const before = get().testProgress;
      if (!before.running) set({ testProgress: { running: true, done: 0, total: before.total } });
      const result = await request(deps, 'testAll', () => client.testAll({}));
      if (!result.ok && get().testProgress.running && get().testProgress.done === 0) set({ testProgress: before });
      return result;
    },
  };
}

export interface ProgressView {
  running: boolean;
  done: number;
  total: number;
  /** 0..1, or null while the total is not known yet. */
  fraction: number | null;
}

export function selectProgressView(state: Pick<AppState, 'testProgress'>): ProgressView {
  const { running, done, total } = state.testProgress;
  const safeDone = Math.max(0, Math.min(done, total));
  return { running, done: safeDone, total, fraction: total > 0 ? safeDone / total : null };
}
