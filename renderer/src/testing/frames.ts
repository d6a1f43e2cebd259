/** Test-only: frames that happen when the test says so, for stores that apply bursts once a frame. */
import type { FrameScheduler } from '../store/frames';

export interface ManualFrames extends FrameScheduler {
  /** Draws one frame: runs what was requested before it; returns how many callbacks ran. */
  next(): number;
  /** Callbacks waiting for the next frame. */
  readonly waiting: number;
}

export function manualFrames(): ManualFrames {
  let queue: (() => void)[] = [];
  return {
    request(callback) {
      queue.push(callback);
    },
    next() {
      const due = queue;
      queue = [];
      for (const callback of due) callback();
      return due.length;
    },
    get waiting() {
      return queue.length;
    },
  };
}
