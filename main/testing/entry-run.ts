/**
 * A command-line entry (`npm run cli`, `npm run headless`) run the way a user runs it, for the
 * hosts' integration tests: the child's output as it comes, its exit code, and a kill that is safe
 * to repeat. The lab these tests point it at is `spawnLab` (e2e/lab/spawn.ts), also a child.
 */
import { type ChildProcess, spawn } from 'node:child_process';

export type Entry = 'main/cli/index.ts' | 'main/headless/main.ts';

export interface EntryRun {
  child: ChildProcess;
  /** Everything it printed to stdout so far. */
  out(): string;
  /** Everything it printed to stderr so far. */
  err(): string;
  /** Its exit code (null when a signal ended it). */
  exited: Promise<number | null>;
  /** Sends `signal` unless it has already exited. */
  kill(signal?: NodeJS.Signals): void;
}

export function runEntry(entry: Entry, args: readonly string[], env: NodeJS.ProcessEnv = process.env): EntryRun {
  const child = spawn(process.execPath, ['--import', 'tsx', entry, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout!.on('data', (d) => (out += String(d)));
  child.stderr!.on('data', (d) => (err += String(d)));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return {
    child,
    out: () => out,
    err: () => err,
    exited,
    kill: (signal = 'SIGKILL') => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    },
  };
}
