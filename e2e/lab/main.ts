/**
 * `npm run lab`: starts the lab, prints one JSON line (the lab's info plus its pid) and runs until
 * SIGINT/SIGTERM, then takes everything down. `--selftest` checks every piece instead and exits.
 */
import { startLab } from './lab';
import { parseLabArgs } from './options';
import { runSelftest } from './selftest';

async function main(): Promise<number> {
  let command;
  try {
    command = parseLabArgs(process.argv.slice(2));
  } catch (error) {
    console.error((error as Error).message);
    return 2;
  }
  if (command.selftest) {
    const report = await runSelftest(command.options);
    process.stdout.write(`${JSON.stringify(report)}\n`);
    return report.ok ? 0 : 1;
  }
  const lab = await startLab(command.options);
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    lab.stop().then(
      () => process.exit(0),
      (error: unknown) => {
        console.error(`lab: stopping after ${signal} failed: ${(error as Error).message}`);
        process.exit(1);
      },
    );
  };
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, () => stop(signal));
  process.stdout.write(`${JSON.stringify({ ...lab.info, pid: process.pid })}\n`);
  return new Promise<number>(() => undefined); // runs until a signal
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(`lab: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    process.exit(1);
  },
);
