type Truthy<T> = Exclude<T, false | null | undefined | 0 | ''>;

/**
 * For benches and worlds that run outside vitest (tests use ./wait.ts, built on `vi.waitFor`):
 * polls `probe` every `stepMs` until it gives a truthy value, which is returned with the time it
 * took, or until `timeoutMs` has passed, which gives null. A bench records a timeout as a figure
 * instead of failing, so the null is the caller's to judge.
 */
export async function pollUntil<T>(probe: () => T | Promise<T>, timeoutMs: number, stepMs = 100): Promise<{ value: Truthy<T>; elapsedMs: number } | null> {
  const began = performance.now();
  for (;;) {
    const value = await probe();
    const elapsedMs = performance.now() - began;
    if (value) return { value: value as Truthy<T>, elapsedMs };
    if (elapsedMs > timeoutMs) return null;
    await new Promise((resolve) => setTimeout(resolve, stepMs));
  }
}

/** `pollUntil` for a bench step that cannot go on without the condition: a timeout is an error naming it. */
export async function pollOrFail<T>(what: string, probe: () => T | Promise<T>, timeoutMs: number, stepMs = 100): Promise<Truthy<T>> {
  const polled = await pollUntil(probe, timeoutMs, stepMs);
  if (!polled) throw new Error(`timed out (${timeoutMs} ms) waiting for ${what}`);
  return polled.value;
}
