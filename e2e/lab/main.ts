/**
 * `npm run lab`: starts the lab, prints one JSON line (the lab's info plus its pid) and runs until
 * SIGINT/SIGTERM/SIGHUP or the end of the program that started it (`kill <npm pid>`), then takes
 * everything down. `--selftest` checks every piece instead and exits.
 */
import { untilStopped } from '../../app/process/until-stopped';
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
  const stop = (reason: string) => {
    if (stopping) return;
    stopping = true;
    lab.stop().then(
      () => process.exit(0),
      (error: unknown) => {
        console.error(`lab: stopping after ${reason} failed: ${(error as Error).message}`);
        process.exit(1);
      },
    );
  };
  void untilStopped().stopped.then(stop);
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
