/**
 * When the store applies what arrives in bursts: once per frame. Injected into the store so unit
 * tests decide when a frame happens (see testing/frames.ts) instead of waiting for one.
 */
export interface FrameScheduler {
  /** Runs `callback` once, before the next frame is drawn. */
  request(callback: () => void): void;
}

/** What `animationFrames` needs of a window. */
export interface FrameHost {
  requestAnimationFrame(callback: () => void): number;
  setTimeout(callback: () => void, ms: number): number;
  clearTimeout(id: number): void;
}

/**
 * requestAnimationFrame, with a timer behind it: a hidden window (minimized to the tray, a
 * background tab) draws no frames, and what waits for one would wait until it is shown again
 * while actions read the store. The timer applies it anyway after `fallbackMs`.
 */
export function animationFrames(host: FrameHost, fallbackMs = 250): FrameScheduler {
  return {
    request(callback) {
      let ran = false;
      const run = () => {
        if (ran) return;
        ran = true;
        host.clearTimeout(timer);
        callback();
      };
      const timer = host.setTimeout(run, fallbackMs);
      host.requestAnimationFrame(run);
    },
  };
}
