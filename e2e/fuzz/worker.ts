/**
 * One fuzz target's full run in its own process (`fork`ed by e2e/bench/fuzz.bench.ts), so that
 * a parser that crashes the runtime (a fatal V8 error cannot be caught) is reported as a crash
 * of that target instead of ending the benchmark. Inputs are generated in batches from
 * `seed + batch`, so a run is reproducible from its seed.
 *
 * argv: <target> <inputs> <seed>; messages to the parent: progress, then one summary.
 */
import fc from 'fast-check';
import { median, quantile, round } from '../bench/harness';
import { show } from './checks/violation';
import { runInput, targetNamed } from './properties';
import { BUDGET_MS } from './timing';

export interface WorkerSummary {
  inputs: number;
  failures: number;
  /** Inputs over the 50 ms budget on the first try (not failures unless slow on every try). */
  over_budget_first_try: number;
  max_ms: number;
  p99_ms: number;
  median_us: number;
  total_s: number;
  /** Up to three failures, each with its reason and the start of its input. */
  failure_samples: { reason: string; input: string }[];
}

export type WorkerMessage = { type: 'progress'; done: number; batch: number } | { type: 'summary'; summary: WorkerSummary };

const BATCH = 500;

async function main(): Promise<void> {
  const [name, inputsArg, seedArg] = process.argv.slice(2);
  const target = targetNamed(name ?? '');
  const total = Number(inputsArg);
  const seed = Number(seedArg);
  const session = await target.open();
  const times = new Float64Array(total);
  const samples: WorkerSummary['failure_samples'] = [];
  let failures = 0;
  let overBudget = 0;
  const started = performance.now();
  for (let batch = 0, done = 0; done < total; batch++) {
    const inputs = fc.sample(target.arbitrary, { numRuns: Math.min(BATCH, total - done), seed: (seed + batch) | 0 });
    for (const input of inputs) {
      try {
        times[done] = (await runInput(session as never, input as never)).ms;
      } catch (error) {
        failures++;
        times[done] = Number.NaN;
        if (samples.length < 3) samples.push({ reason: error instanceof Error ? error.message.slice(0, 400) : String(error), input: show(input, 300) });
      }
      if (times[done]! > BUDGET_MS) overBudget++;
      done++;
    }
    process.send?.({ type: 'progress', done, batch } satisfies WorkerMessage);
  }
  const totalS = (performance.now() - started) / 1000;
  await session.close();
  const measured = [...times].filter((t) => !Number.isNaN(t));
  const summary: WorkerSummary = {
    inputs: total,
    failures,
    over_budget_first_try: overBudget,
    max_ms: round(Math.max(0, ...measured), 2),
    p99_ms: round(quantile(measured, 0.99), 3),
    median_us: round(median(measured) * 1000, 1),
    total_s: round(totalS, 1),
    failure_samples: samples,
  };
  process.send?.({ type: 'summary', summary } satisfies WorkerMessage);
}

main().then(
  () => process.disconnect?.(),
  (error: unknown) => {
    console.error(error instanceof Error ? (error.stack ?? error.message) : String(error));
    process.exit(1);
  },
);
