import { describe, expect, it } from 'vitest';
import { launcherChain, type ProcessEntry, procTable } from './until-stopped';

const table =
  (entries: Record<number, ProcessEntry>) =>
  (pid: number): ProcessEntry | null =>
    entries[pid] ?? null;

describe('launcherChain', () => {
  it('walks up through npm, sh and node wrappers to the program that ran npm, and no further', () => {
    const processes = table({
      40: { ppid: 30, name: 'node', startTicks: '4' }, // tsx's node
      30: { ppid: 20, name: 'sh', startTicks: '3' },
      20: { ppid: 10, name: 'npm run lab', startTicks: '2' },
      10: { ppid: 5, name: 'bash', startTicks: '1' },
      5: { ppid: 1, name: 'sshd', startTicks: '0' },
    });
    expect(launcherChain(40, processes).map((p) => p.pid)).toEqual([40, 30, 20, 10]);
  });

  it('a parent that is a program of its own is the whole chain', () => {
    expect(launcherChain(7, table({ 7: { ppid: 1, name: 'systemd-run', startTicks: '9' } }))).toEqual([{ pid: 7, startTicks: '9' }]);
  });

  it('reads this process from /proc', () => {
    const self = procTable(process.pid);
    expect(self?.ppid).toBe(process.ppid);
    expect(self?.startTicks).toMatch(/^\d+$/);
  });
});
