/**
 * How a long-running command (the lab, the demo, the headless host, `cli connect`) knows it is
 * time to stop: Ctrl-C, SIGTERM or SIGHUP, or the program that launched it going away. `npm run`
 * starts a chain (npm → sh → tsx → node) and does not pass a kill of npm down it, so without the
 * second the node process and its cores would run on after `kill <npm pid>`.
 */
import { readFileSync } from 'node:fs';

export type StopReason = NodeJS.Signals | 'launcher gone';

export interface StopWatch {
  /** Settles once, with the first reason to stop. */
  readonly stopped: Promise<StopReason>;
  /** Stops watching (the command is shutting down for its own reasons). */
  dispose(): void;
}

/** A process as /proc shows it: its parent, its name and when it started (to tell a reused pid). */
export interface ProcessEntry {
  ppid: number;
  name: string;
  startTicks: string;
}

export type ProcessTable = (pid: number) => ProcessEntry | null;

/** Names of the programs that only launch us: the launcher is the first process above them too. */
const LAUNCH_WRAPPER = /^(node|npm.*|npx|sh|dash|tsx)$/;

/**
 * The processes whose end means ours: the parent, and above it every launch wrapper up to and
 * including the first program that is not one (npm's caller: the user's shell, a test runner).
 */
export function launcherChain(ppid: number, table: ProcessTable): { pid: number; startTicks: string }[] {
  const chain: { pid: number; startTicks: string }[] = [];
  let pid = ppid;
  while (pid > 1 && chain.length < 16) {
    const entry = table(pid);
    if (!entry) break;
    chain.push({ pid, startTicks: entry.startTicks });
    if (!LAUNCH_WRAPPER.test(entry.name)) break;
    pid = entry.ppid;
  }
  return chain;
}

/** Linux's /proc; null where there is none (the parent's pid is watched instead). */
export const procTable: ProcessTable = (pid) => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The name is in parentheses and may itself hold spaces or parentheses: fields follow the last ')'.
    const close = stat.lastIndexOf(')');
    const name = stat.slice(stat.indexOf('(') + 1, close);
    const fields = stat.slice(close + 2).split(' ');
    return { ppid: Number(fields[1]), name, startTicks: fields[19] ?? '' };
  } catch {
    return null;
  }
};

export interface UntilStoppedOptions {
  signals?: readonly NodeJS.Signals[];
  /** How often the launchers are looked at (default 500 ms). */
  pollMs?: number;
  table?: ProcessTable;
}

export function untilStopped(options: UntilStoppedOptions = {}): StopWatch {
  const signals = options.signals ?? (['SIGINT', 'SIGTERM', 'SIGHUP'] as const);
  const table = options.table ?? procTable;
  let settle: (reason: StopReason) => void = () => undefined;
  const stopped = new Promise<StopReason>((resolve) => {
    settle = resolve;
  });
  const onSignal = (signal: NodeJS.Signals) => settle(signal);
  for (const signal of signals) process.on(signal, onSignal);

  const firstParent = process.ppid;
  const chain = launcherChain(firstParent, table);
  const launcherGone = chain.length > 0 ? () => chain.some(({ pid, startTicks }) => table(pid)?.startTicks !== startTicks) : () => process.ppid !== firstParent;
  const timer = setInterval(() => {
    if (launcherGone()) settle('launcher gone');
  }, options.pollMs ?? 500);
  timer.unref();

  return {
    stopped,
    dispose: () => {
      clearInterval(timer);
      for (const signal of signals) process.off(signal, onSignal);
    },
  };
}
