import { cpus, freemem, totalmem } from 'node:os';

/**
 * A benchmark measures and reports; it never asserts. Figures carry their unit in the key
 * (`median_ms`, `links_per_s`, `rss_mib`) so a reader of the JSON needs nothing else.
 */
export interface Benchmark {
  name: string;
  description: string;
  run(args: string[]): Promise<Record<string, unknown>>;
}

export function machine(): Record<string, unknown> {
  const cpuList = cpus();
  return {
    cpus: cpuList.length,
    cpu_model: cpuList[0]?.model ?? 'unknown',
    memory_total_gib: Math.round((totalmem() / 1024 ** 3) * 10) / 10,
    memory_free_gib: Math.round((freemem() / 1024 ** 3) * 10) / 10,
    node: process.version,
    platform: `${process.platform}-${process.arch}`,
  };
}

export function median(values: number[]): number {
  return quantile(values, 0.5);
}

/** Linear-interpolated quantile of a sample (q in 0..1); NaN for an empty sample. */
export function quantile(values: number[], q: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const pos = (sorted.length - 1) * q;
  const lower = Math.floor(pos);
  const upper = Math.ceil(pos);
  const lo = sorted[lower] as number;
  const hi = sorted[upper] as number;
  return lo + (hi - lo) * (pos - lower);
}

export function round(value: number, digits = 1): number {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}

/** Reads `--name value` from argv, with a default. */
export function option(args: string[], name: string, fallback: number): number;
export function option(args: string[], name: string, fallback: string): string;
export function option(args: string[], name: string, fallback: number | string): number | string {
  const i = args.indexOf(`--${name}`);
  const value = i >= 0 ? args[i + 1] : undefined;
  if (value === undefined) return fallback;
  return typeof fallback === 'number' ? Number(value) : value;
}

/**
 * Growth after warm-up: the median of the last three samples against the median of the first
 * three after warm-up, the highest sample against that baseline, and the same for the floor (the
 * lowest of three samples). Something started on demand and stopped again (the reachability
 * core, idle after 30 s; a request in flight) moves the median and the maximum; a leak raises the
 * floor too.
 */
export function growth<R extends { t_s: number }>(rows: R[], warmupS: number, pick: (r: R) => number) {
  const after = rows.filter((r) => r.t_s >= warmupS);
  if (after.length < 2) return { baseline: null, final: null, growth_pct: null, max_pct: null, floor_growth_pct: null };
  const baseline = median(after.slice(0, 3).map(pick));
  const final = median(after.slice(-3).map(pick));
  const max = Math.max(...after.map(pick));
  const floorStart = Math.min(...after.slice(0, 3).map(pick));
  const floorEnd = Math.min(...after.slice(-3).map(pick));
  const pct = (v: number, base = baseline) => (base === 0 ? (v === 0 ? 0 : null) : round(((v - base) / base) * 100, 1));
  return { baseline: round(baseline, 2), final: round(final, 2), growth_pct: pct(final), max_pct: pct(max), floor_growth_pct: pct(floorEnd, floorStart) };
}
