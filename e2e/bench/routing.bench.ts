/**
 * `npm run bench -- routing [--runs 7] [--core /usr/bin/v2ray]`: for `global` and each region
 * preset, in one run, the tunnel config the app writes (bytes), the core's start (spawn to its HTTP
 * inbound accepting, median of runs) and its resident memory once started (median). The goal the
 * presets are held to (≤ 50 ms and ≤ 10 MB over global) is printed beside the figures, not
 * asserted. The server outbound points at 127.0.0.1:1 and nothing is sent through it.
 */
import { readFileSync } from 'node:fs';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { detectCore, tunnelConfig, writeConfigFile } from '../../app/core';
import { sampleServer } from '../../app/core/samples';
import { memoryLogger } from '../../app/log/logger';
import { routingPlan } from '../../app/routing/policy/plan';
import { shippedRegions } from '../../app/routing/testing/shipped-regions';
import { CoreProcess } from '../../app/tunnel/core-process';
import { freePorts } from '../../app/tunnel/ports';
import { DEFAULT_DNS, REGION_PRESETS, routingSettingsSchema } from '../../shared/routing';
import { type Benchmark, median } from './harness';

/** Resident memory of the core under its guard process (the guard's only child). */
function coreRssKib(guardPid: number): number {
  const children = readFileSync(`/proc/${guardPid}/task/${guardPid}/children`, 'utf8').trim().split(/\s+/);
  const pid = children[0] ?? String(guardPid);
  const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return match ? Number(match[1]) : Number.NaN;
}

const round1 = (n: number) => Math.round(n * 10) / 10;

export const routingBenchmark: Benchmark = {
  name: 'routing',
  description: 'config size, core start time and memory for global and each region preset (one run)',
  async run(args) {
    const runs = Number(args[args.indexOf('--runs') + 1] ?? 7) || 7;
    const corePath = args.includes('--core') ? (args[args.indexOf('--core') + 1] as string) : '/usr/bin/v2ray';
    const core = await detectCore(corePath);
    const regions = shippedRegions();
    const dir = await mkdtemp(join(tmpdir(), 'steadfast-routing-bench-'));
    const { logger } = memoryLogger('warning');
    const server = sampleServer('vmess', 'tcp', { address: '127.0.0.1', port: 1 });
    const results: Record<string, { config_bytes: number; start_median_ms: number; rss_median_mib: number }> = {};
    try {
      for (const preset of REGION_PRESETS) {
        const plan = routingPlan(routingSettingsSchema.parse({ preset }), DEFAULT_DNS, regions);
        const starts: number[] = [];
        const rss: number[] = [];
        let bytes = 0;
        // Runs interleave with nothing else: one preset's runs, then the next.
        for (let i = 0; i < runs; i++) {
          const [httpPort, socksPort, apiPort] = (await freePorts(3)) as [number, number, number];
          const config = tunnelConfig({ server, core, listen: '127.0.0.1', httpPort, socksPort, apiPort, routing: plan.routing });
          const file = await writeConfigFile(dir, `bench-${preset}`, config);
          bytes = (await stat(file)).size;
          const process = await CoreProcess.start({ core, configPath: file, readyPort: httpPort, logger, logTag: 'BENCH', label: `${preset} core` });
          starts.push(process.startMs);
          // Let the core finish what it does right after listening (loading rules, GC).
          await new Promise((resolve) => setTimeout(resolve, 300));
          rss.push(coreRssKib(process.pid as number) / 1024);
          await process.stop();
        }
        results[preset] = { config_bytes: bytes, start_median_ms: round1(median(starts)), rss_median_mib: round1(median(rss)) };
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
    const global = results.global as { start_median_ms: number; rss_median_mib: number };
    const added = Object.fromEntries(
      Object.entries(results)
        .filter(([preset]) => preset !== 'global')
        .map(([preset, r]) => [preset, { start_added_ms: round1(r.start_median_ms - global.start_median_ms), rss_added_mib: round1(r.rss_median_mib - global.rss_median_mib) }]),
    );
    return {
      core: `${core.family} ${core.version}`,
      runs_per_preset: runs,
      region_data_date: regions.date,
      presets: results,
      added_over_global: added,
      goal: { start_added_ms_at_most: 50, rss_added_mib_at_most: 10 },
    };
  },
};
