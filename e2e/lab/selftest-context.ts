/** What every selftest check gets: the running lab, a client with one proxy per server, helpers. */
import type { LabClient } from './client';
import { fetchVia, type FetchResult } from './client';
import type { InProcessLab } from './lab';
import type { ServerSpec } from './world';

export interface Check {
  ok: boolean;
  [figure: string]: unknown;
}

export interface SelftestContext {
  lab: InProcessLab;
  client: LabClient;
  spec(id: string): ServerSpec;
  /** GET `url` through server `id`'s proxy (or the chain route `chain:X>Y`). */
  via(route: string, url: string, timeoutMs: number): Promise<FetchResult>;
  direct(url: string, timeoutMs: number): Promise<FetchResult>;
}

export function makeContext(lab: InProcessLab, client: LabClient): SelftestContext {
  const specs = new Map(lab.world.servers.map((s) => [s.id, s]));
  return {
    lab,
    client,
    spec: (id) => {
      const s = specs.get(id);
      if (!s) throw new Error(`no server ${id}`);
      return s;
    },
    via: (route, url, timeoutMs) => {
      const port = client.proxies[route];
      if (port === undefined) throw new Error(`no client route ${route}`);
      return fetchVia(port, url, timeoutMs);
    },
    direct: (url, timeoutMs) => fetchVia(null, url, timeoutMs),
  };
}

export const round = (n: number, digits = 1) => Math.round(n * 10 ** digits) / 10 ** digits;

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  if (sorted.length === 0) return Number.NaN;
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Runs a check, turning a thrown error into a failed verdict that says why. */
export async function guarded(run: () => Promise<Check>): Promise<Check> {
  try {
    return await run();
  } catch (error) {
    return { ok: false, error: error instanceof Error ? error.message : String(error) };
  }
}
