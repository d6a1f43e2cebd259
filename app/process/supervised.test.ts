import { execFileSync, spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { spawnSupervised, stopSupervised } from './supervised';
import { processAlive } from './alive';

async function waitFor(predicate: () => boolean, timeoutMs: number): Promise<boolean> {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    if (predicate()) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return predicate();
}

function childrenOf(pid: number): number[] {
  try {
    return execFileSync('pgrep', ['-P', String(pid)], { encoding: 'utf8' }).trim().split('\n').filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

describe.runIf(process.platform !== 'win32')('spawnSupervised', () => {
  it('passes the exit status of a child that ends by itself', async () => {
    const child = spawnSupervised('/bin/sh', ['-c', 'exit 3']);
    const code = await new Promise((r) => child.once('exit', (c) => r(c)));
    expect(code).toBe(3);
  });

  it('stops the child when asked', async () => {
    const child = spawnSupervised('sleep', ['30']);
    await waitFor(() => childrenOf(child.pid!).length > 0, 2000);
    const [sleeper] = childrenOf(child.pid!);
    await stopSupervised(child);
    expect(await waitFor(() => !processAlive(sleeper!), 3000)).toBe(true);
  });

  it('has reaped the child (no zombie, nothing left) by the time stop resolves', async () => {
    const child = spawnSupervised('sleep', ['30']);
    await waitFor(() => childrenOf(child.pid!).length >= 2, 2000);
    const helpers = childrenOf(child.pid!);
    await stopSupervised(child);
    // `ps -p` lists zombies too: an unreaped child would still show up here.
    const leftover = helpers.filter((pid) => {
      try {
        return execFileSync('ps', ['-o', 'stat=', '-p', String(pid)], { encoding: 'utf8' }).trim() !== '';
      } catch {
        return false;
      }
    });
    expect(leftover).toEqual([]);
  });

  it('kills the child when its parent is SIGKILLed', async () => {
    // A throwaway parent that supervises `sleep 30`, prints the guard's pid, then gets killed -9.
    const script = `
      import { spawnSupervised } from ${JSON.stringify(new URL('./supervised.ts', import.meta.url).pathname)};
      const c = spawnSupervised('sleep', ['30']);
      console.log(c.pid);
      setInterval(() => {}, 1000);
    `;
    const parent = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
    const guardPid = await new Promise<number>((resolve) => parent.stdout!.once('data', (d) => resolve(Number(String(d).trim()))));
    expect(await waitFor(() => childrenOf(guardPid).length > 0, 3000)).toBe(true);
    const sleepers = childrenOf(guardPid).filter((pid) => execFileSync('ps', ['-o', 'comm=', '-p', String(pid)], { encoding: 'utf8' }).trim() === 'sleep');
    expect(sleepers).toHaveLength(1);
    parent.kill('SIGKILL');
    expect(await waitFor(() => !processAlive(sleepers[0]!), 4000)).toBe(true);
  }, 15_000);
});
