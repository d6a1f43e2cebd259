/** Process checks for integration tests: is a pid alive (zombies count as gone), which cores run. */
import { readdirSync, readFileSync } from 'node:fs';

export function isRunning(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Field 3 is the state; a zombie has exited, it only waits to be reaped.
    const state = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0];
    return state !== 'Z' && state !== 'X';
  } catch {
    return false;
  }
}

/** Pids of running processes whose command line mentions `needle` (e.g. a config path). */
export function processesMentioning(needle: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0').join(' ');
      if (cmdline.includes(needle) && isRunning(Number(entry))) pids.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return pids;
}

export async function waitUntil(predicate: () => boolean | Promise<boolean>, timeoutMs: number, stepMs = 20): Promise<boolean> {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    if (await predicate()) return true;
    await new Promise((r) => setTimeout(r, stepMs));
  }
  return predicate();
}

/** Pids of running processes started as `executable` whose command line mentions `needle`. */
export function processesOf(executable: string, needle: string): number[] {
  return processesMentioning(needle).filter((pid) => {
    try {
      return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0')[0] === executable;
    } catch {
      return false;
    }
  });
}
