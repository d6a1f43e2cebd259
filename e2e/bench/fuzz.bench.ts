import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { WorkerMessage, WorkerSummary } from '../fuzz/worker';
import { TARGETS } from '../fuzz/properties';
import { type Benchmark, option, round } from './harness';

const WORKER = fileURLToPath(new URL('../fuzz/worker.ts', import.meta.url));

/** What a target's run came to: its figures, or how its process died. */
type TargetReport = WorkerSummary | { crashed: true; exit: string; inputs_done: number; stderr_tail: string; total_s: number };

/**
 * `npm run bench -- fuzz [--inputs 100000] [--only a,b] [--seed N]`: every fuzz target of
 * e2e/fuzz/properties.ts with `--inputs` generated and mutated inputs, one process per target
 * (a crash is reported, not fatal). Per target: inputs, failures (0 expected), max / p99 / median
 * time of one input, total time. Figures only; the seed reproduces a run.
 */
export const fuzzBenchmark: Benchmark = {
  name: 'fuzz',
  description: 'property-based fuzzing of every parser: 100,000 generated and mutated inputs each (failures, max / p99 / median time per input)',
  async run(args) {
    const inputs = option(args, 'inputs', 100_000);
    const seed = option(args, 'seed', Date.now() % 2_147_483_647);
    const only = option(args, 'only', '');
    const names = only ? only.split(',') : TARGETS.map((t) => t.name);
    const started = performance.now();
    const parsers: Record<string, TargetReport> = {};
    for (const name of names) {
      console.error(`fuzz: ${name} (${inputs} inputs)…`);
      parsers[name] = await runTarget(name, inputs, seed);
    }
    const reports = Object.values(parsers);
    return {
      seed,
      budget_ms: 50,
      parsers,
      inputs_total: reports.reduce((n, r) => n + ('crashed' in r ? r.inputs_done : r.inputs), 0),
      failures_total: reports.reduce((n, r) => n + ('crashed' in r ? 1 : r.failures), 0),
      crashes: reports.filter((r) => 'crashed' in r).length,
      total_s: round((performance.now() - started) / 1000, 1),
    };
  },
};

function runTarget(name: string, inputs: number, seed: number): Promise<TargetReport> {
  return new Promise((resolve) => {
    const started = performance.now();
    const child = fork(WORKER, [name, String(inputs), String(seed)], { stdio: ['ignore', 'ignore', 'pipe', 'ipc'] });
    let summary: WorkerSummary | null = null;
    let done = 0;
    let stderr = '';
    child.stderr?.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-4000)));
    child.on('message', (message: WorkerMessage) => {
      if (message.type === 'progress') done = message.done;
      else summary = message.summary;
    });
    child.on('exit', (code, signal) => {
      if (summary && code === 0) return resolve(summary);
      resolve({
        crashed: true,
        exit: signal ?? `code ${code}`,
        inputs_done: done,
        stderr_tail: stderr.split('\n').filter((l) => !/^\s*\d+: 0x/.test(l)).join('\n').slice(-1500),
        total_s: round((performance.now() - started) / 1000, 1),
      });
    });
  });
}
