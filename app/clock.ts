/**
 * Time as the engine sees it. Runtimes take a Clock so every rule can be tested on a fake clock
 * (app/testing/fake-clock.ts) without real sleeps; policy files take `now` as a plain argument.
 */
export interface TimerHandle {
  cancel(): void;
}

export interface Clock {
  /** Epoch milliseconds. */
  now(): number;
  /** Runs `callback` once after `ms`; the handle cancels it. */
  after(ms: number, callback: () => void): TimerHandle;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  after(ms, callback) {
    const timer = setTimeout(callback, Math.max(0, ms));
    timer.unref?.();
    return { cancel: () => clearTimeout(timer) };
  },
};

/** Resolves after `ms` on the given clock (or at once when aborted). */
export function sleep(clock: Clock, ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const handle = clock.after(ms, () => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    });
    const onAbort = () => {
      handle.cancel();
      resolve();
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * Runs `work` `firstMs` from now, then `everyMs` after each run has ended (never two at once),
 * until the returned function is called: the refreshers' "a first look shortly after start, then
 * every so often".
 */
export function repeatAfterEach(clock: Clock, firstMs: number, everyMs: number, work: () => Promise<void>): () => void {
  let timer: TimerHandle | null = null;
  let stopped = false;
  const schedule = (ms: number) => {
    if (stopped) return;
    timer = clock.after(ms, () => {
      timer = null;
      void work().finally(() => schedule(everyMs));
    });
  };
  schedule(firstMs);
  return () => {
    stopped = true;
    timer?.cancel();
    timer = null;
  };
}
