import { vi } from 'vitest';

type Truthy<T> = Exclude<T, false | null | undefined | 0 | ''>;

/**
 * Waits, in a test, until `probe` gives a truthy value and returns it. vitest's `vi.waitFor` does
 * the polling (and waits out a probe that is still running); this only names what was awaited in
 * the failure, so a timed-out integration test says which condition never came.
 */
export function waitFor<T>(what: string, probe: () => T | Promise<T>, timeoutMs: number, intervalMs = 100): Promise<Truthy<T>> {
  return vi.waitFor(
    async () => {
      const value = await probe();
      if (!value) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
      return value as Truthy<T>;
    },
    { timeout: timeoutMs, interval: intervalMs },
  );
}
