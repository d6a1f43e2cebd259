/** The bulk speed test: how far it has got, starting one for a scope, cancelling it. */
import { IDLE_SPEED_TEST, type SpeedTestProgress, type SpeedTestScope } from '../../../shared/domain/speed-test';
import { type ActionResult, request, type AppState, type SliceDeps } from './types';

export interface SpeedTestSlice {
  speedTest: SpeedTestProgress;
  setSpeedTest(progress: SpeedTestProgress): void;
  startSpeedTest(scope: SpeedTestScope): Promise<ActionResult<SpeedTestProgress>>;
  cancelSpeedTest(): Promise<ActionResult<SpeedTestProgress>>;
}

export const speedTestInitialState: Pick<SpeedTestSlice, 'speedTest'> = { speedTest: IDLE_SPEED_TEST };

export function createSpeedTestSlice(deps: SliceDeps): SpeedTestSlice {
  const { set, get, client } = deps;
  return {
    ...speedTestInitialState,
    setSpeedTest: (speedTest) => set({ speedTest }),
    startSpeedTest: async (scope) => {
      const result = await request(deps, 'speedTest', () => client.startSpeedTest({ scope }));
      // The answer and the progress event say the same; whichever comes first is shown.
      if (result.ok && !get().speedTest.running && result.value.running) set({ speedTest: result.value });
      return result;
    },
    cancelSpeedTest: async () => {
      // Shown as stopping at once; the host answers when every download has stopped.
      if (get().speedTest.running) set({ speedTest: { ...get().speedTest, cancelling: true, remainingMs: null } });
      const result = await request(deps, 'speedTest', () => client.cancelSpeedTest({}));
      if (result.ok) set({ speedTest: result.value });
      return result;
    },
  };
}

export interface SpeedTestView {
  running: boolean;
  cancelling: boolean;
  done: number;
  total: number;
  /** 0..1 */
  fraction: number;
  /** Time left, counted down from the host's estimate; null until the first server finished. */
  remainingMs: number | null;
}

/** The progress as the bar shows it at `now`, the estimate counted down since it arrived. */
export function selectSpeedTestView(state: Pick<AppState, 'speedTest'>): SpeedTestView {
  const { running, cancelling, done, total, remainingMs } = state.speedTest;
  const safeDone = Math.max(0, Math.min(done, total));
  return { running, cancelling, done: safeDone, total, fraction: total > 0 ? safeDone / total : 0, remainingMs: cancelling ? null : remainingMs };
}
