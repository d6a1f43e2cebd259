/**
 * `npm run bench -- NAME [options]` runs one benchmark and prints one JSON object;
 * `npm run bench -- list` lists them. Each benchmark registers itself below.
 */
import { type Benchmark, machine } from './harness';

const BENCHMARKS: Record<string, () => Promise<Benchmark>> = {
  lab: async () => (await import('./lab.bench')).labBenchmark,
  sweep: async () => (await import('./sweep.bench')).sweepBenchmark,
  parse: async () => (await import('./parse.bench')).parseBenchmark,
  fuzz: async () => (await import('./fuzz.bench')).fuzzBenchmark,
  switch: async () => (await import('./switch.bench')).switchBenchmark,
  ui: async () => (await import('./ui.bench')).uiBenchmark,
  'ui-soak': async () => (await import('./ui-soak.bench')).uiSoakBenchmark,
  failover: async () => (await import('./failover.bench')).failoverBenchmark,
  soak: async () => (await import('./soak.bench')).soakBenchmark,
  'system-wide': async () => (await import('./system-wide.bench')).systemWideBenchmark,
  freeze: async () => (await import('./freeze.bench')).freezeBenchmark,
  routing: async () => (await import('./routing.bench')).routingBenchmark,
  'monitor-cost': async () => (await import('./monitor-cost.bench')).monitorCostBenchmark,
  speedtest: async () => (await import('./speedtest.bench')).speedtestBenchmark,
  groups: async () => (await import('./groups.bench')).groupsBenchmark,
  'per-app-scan': async () => (await import('./per-app-scan.bench')).perAppScanBenchmark,
};

async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === 'list') {
    for (const [key, load] of Object.entries(BENCHMARKS)) {
      const bench = await load();
      console.log(`${key.padEnd(10)} ${bench.description}`);
    }
    return name ? 0 : 2;
  }
  const load = BENCHMARKS[name];
  if (!load) {
    console.error(`unknown benchmark "${name}"; try: npm run bench -- list`);
    return 2;
  }
  const bench = await load();
  const startedAt = new Date().toISOString();
  const figures = await bench.run(rest);
  console.log(JSON.stringify({ benchmark: name, started_at: startedAt, ...figures, machine: machine() }));
  return 0;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error instanceof Error ? (error.stack ?? error.message) : String(error));
    process.exit(1);
  },
);
