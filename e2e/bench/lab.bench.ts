/**
 * Lab start-up and stop times for 12 and 200 servers: in-process (`startLab` resolves) and as a
 * child process (`npm run lab`'s JSON line, tsx start-up included), and 12 with the modern block
 * (`--modern`: the Xray and sing-box servers). Median of `--runs` (default 5).
 */
import { performance } from 'node:perf_hooks';
import { spawnLab, startLab } from '../lab/index';
import { type Benchmark, median, option, round } from './harness';

async function timeRuns(runs: number, start: () => Promise<{ stop(): Promise<void> }>): Promise<{ start: number[]; stop: number[] }> {
  const starts: number[] = [];
  const stops: number[] = [];
  for (let i = 0; i < runs; i += 1) {
    const t0 = performance.now();
    const lab = await start();
    const t1 = performance.now();
    await lab.stop();
    const t2 = performance.now();
    starts.push(t1 - t0);
    stops.push(t2 - t1);
  }
  return { start: starts, stop: stops };
}

export const labBenchmark: Benchmark = {
  name: 'lab',
  description: 'lab start-up and stop time for 12 and 200 servers (in-process and as `npm run lab`), and 12 with the modern block',
  async run(args) {
    const runs = option(args, 'runs', 5);
    const figures: Record<string, unknown> = { runs };
    for (const servers of [12, 200]) {
      const inProcess = await timeRuns(runs, () => startLab({ servers }));
      const spawned = await timeRuns(runs, () => spawnLab(['--servers', String(servers)]));
      figures[`start_${servers}_median_ms`] = round(median(inProcess.start));
      figures[`start_${servers}_max_ms`] = round(Math.max(...inProcess.start));
      figures[`stop_${servers}_median_ms`] = round(median(inProcess.stop));
      figures[`spawn_${servers}_json_line_median_ms`] = round(median(spawned.start));
      figures[`spawn_${servers}_json_line_max_ms`] = round(Math.max(...spawned.start));
      figures[`spawn_${servers}_stop_median_ms`] = round(median(spawned.stop));
    }
    // The modern block (Xray and sing-box servers, --modern) beside the 12: what it adds.
    const modern = await timeRuns(runs, () => startLab({ servers: 12, modern: true }));
    figures.start_12_modern_median_ms = round(median(modern.start));
    figures.start_12_modern_max_ms = round(Math.max(...modern.start));
    figures.stop_12_modern_median_ms = round(median(modern.stop));
    figures.modern_adds_start_median_ms = round(median(modern.start) - (figures.start_12_median_ms as number));
    return figures;
  },
};
