/** Test helpers: measurement lists written the way spec/auto.md's tables write them. */
import type { Measurement, ProbeMethod } from '../../../shared/domain/measurement';

export const NOW = Date.UTC(2026, 0, 1, 12);

/** Delays oldest first (null = no answer), one minute apart, the last one a minute before `now`. */
export function delays(values: (number | null)[], options: { now?: number; method?: ProbeMethod; spacingMs?: number } = {}): Measurement[] {
  const now = options.now ?? NOW;
  const spacing = options.spacingMs ?? 60_000;
  return values.map((delayMs, i) => ({ at: now - (values.length - i) * spacing, method: options.method ?? 'url', delayMs }));
}
