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
  clearTimeout(handle: number): void;
  document: {
    readonly hidden: boolean;
    addEventListener(type: 'visibilitychange', listener: () => void): void;
    removeEventListener(type: 'visibilitychange', listener: () => void): void;
  };
}

/**
 * requestAnimationFrame while the window is shown. A hidden window (minimized to the tray, a
 * background tab) draws no frames and nobody looks at it, so there what arrives is coalesced:
 * applied once every `hiddenDelayMs` (later patches of a server replace earlier ones meanwhile),
 * or at once when the window is shown again, whichever comes first; the timer and the listener
 * of a request leave with it. (A window hidden after the request waits for its next frame:
 * nothing in a hidden window reads the store meanwhile.) No timer rides along with every frame:
 * during Test all that cost more than the frames themselves.
 */
export function animationFrames(host: FrameHost, hiddenDelayMs = 2000): FrameScheduler {
  return {
    request(callback) {
      if (!host.document.hidden) {
        host.requestAnimationFrame(() => callback());
        return;
      }
      const run = () => {
        host.clearTimeout(timer);
        host.document.removeEventListener('visibilitychange', run);
        callback();
      };
      const timer = host.setTimeout(run, hiddenDelayMs);
      host.document.addEventListener('visibilitychange', run);
    },
  };
}
