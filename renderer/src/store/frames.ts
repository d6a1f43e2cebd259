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
  document: { readonly hidden: boolean };
}

/**
 * requestAnimationFrame while the window is shown. A hidden window (minimized to the tray, a
 * background tab) draws no frames, and what waited for one would wait until it is shown again,
 * so there a timer applies it after `hiddenDelayMs`. (A window hidden after the request waits for
 * its next frame: nothing in a hidden window reads the store meanwhile.) No timer rides along with
 * every frame: during Test all that cost more than the frames themselves.
 */
export function animationFrames(host: FrameHost, hiddenDelayMs = 250): FrameScheduler {
  return {
    request(callback) {
      if (host.document.hidden) host.setTimeout(callback, hiddenDelayMs);
      else host.requestAnimationFrame(() => callback());
    },
  };
}
