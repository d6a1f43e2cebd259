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
