/** The bulk speed test: how far it has got, starting one for a scope, cancelling it. */
import { IDLE_SPEED_TEST, type SpeedTestProgress, type SpeedTestScope } from '../../../shared/domain/speed-test';
import { type AppState, type SliceDeps } from './types';
import { type ActionResult, request } from './request';

export interface SpeedTestSlice {
  speedTest: SpeedTestProgress;
  /** When the progress arrived (this window's clock): the time left counts down from it. */
  speedTestAt: number;
  setSpeedTest(progress: SpeedTestProgress): void;
  startSpeedTest(scope: SpeedTestScope): Promise<ActionResult<SpeedTestProgress>>;
  cancelSpeedTest(): Promise<ActionResult<SpeedTestProgress>>;
}

export const speedTestInitialState: Pick<SpeedTestSlice, 'speedTest' | 'speedTestAt'> = { speedTest: IDLE_SPEED_TEST, speedTestAt: 0 };

export function createSpeedTestSlice(deps: SliceDeps): SpeedTestSlice {
  const { set, get, client } = deps;
  return {
    ...speedTestInitialState,
    setSpeedTest: (speedTest) => set({ speedTest, speedTestAt: Date.now() }),
    startSpeedTest: async (scope) => {
      const result = await request(deps, 'speedTest', () => client.startSpeedTest({ scope }));
      // The answer and the progress event say the same; whichever comes first is shown.
      if (result.ok && !get().speedTest.running && result.value.running) get().setSpeedTest(result.value);
      return result;
    },
    cancelSpeedTest: async () => {
      // Shown as stopping at once; the host answers when every download has stopped.
      if (get().speedTest.running) get().setSpeedTest({ ...get().speedTest, cancelling: true, remainingMs: null });
      const result = await request(deps, 'speedTest', () => client.cancelSpeedTest({}));
      if (result.ok) get().setSpeedTest(result.value);
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
  /** The host's estimate of the time left, and when it arrived; null until the first server finished. */
  remainingMs: number | null;
  remainingAt: number;
}

export function selectSpeedTestView(state: Pick<AppState, 'speedTest' | 'speedTestAt'>): SpeedTestView {
  const { running, cancelling, done, total, remainingMs } = state.speedTest;
  const safeDone = Math.max(0, Math.min(done, total));
  return { running, cancelling, done: safeDone, total, fraction: total > 0 ? safeDone / total : 0, remainingMs: cancelling ? null : remainingMs, remainingAt: state.speedTestAt };
}

/** The time left at `now`: the estimate counted down since it arrived (a slow server holds no update back for long). */
export function remainingAt(view: Pick<SpeedTestView, 'remainingMs' | 'remainingAt'>, now: number): number | null {
  return view.remainingMs === null ? null : Math.max(0, view.remainingMs - Math.max(0, now - view.remainingAt));
}
