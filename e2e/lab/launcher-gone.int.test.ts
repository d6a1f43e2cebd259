/**
 * `kill <npm pid>` of a long-running command: npm passes nothing down its chain (npm → sh → tsx →
 * node), so the command itself notices its launcher is gone, stops, and its cores go with it.
 * Run as users run them, through `npm run`, and killed with SIGKILL (npm gets no say).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { isRunning } from '../../app/tunnel/testing/processes';

const started: ChildProcess[] = [];
afterEach(() => {
  for (const child of started.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
});

/** Every process below `root`, read from /proc. */
function descendants(root: number): { pid: number; command: string }[] {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      children.set(ppid, [...(children.get(ppid) ?? []), Number(entry)]);
    } catch {
      // gone meanwhile
    }
  }
  const out: { pid: number; command: string }[] = [];
  const walk = (pid: number) => {
    for (const child of children.get(pid) ?? []) {
      let command = '';
      try {
        command = readFileSync(`/proc/${child}/cmdline`, 'utf8').split('\0').join(' ');
      } catch {
        // gone meanwhile
      }
      out.push({ pid: child, command });
      walk(child);
    }
  };
  walk(root);
  return out;
}

function npmRun(script: string, args: string[], env: NodeJS.ProcessEnv = {}): { npm: ChildProcess; firstLine: Promise<string> } {
  const npm = spawn('npm', ['run', '--silent', script, '--', ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  started.push(npm);
  let stderr = '';
  npm.stderr!.on('data', (d) => (stderr = (stderr + String(d)).slice(-4000)));
  const firstLine = new Promise<string>((resolve, reject) => {
    let out = '';
    npm.stdout!.on('data', (d) => {
      out += String(d);
      const line = out.split('\n').find((l) => l.startsWith('{') || l.startsWith('http'));
      if (line && out.includes('\n')) resolve(line);
    });
    npm.once('exit', (code) => reject(new Error(`npm run ${script} exited (${code}): ${stderr}`)));
  });
  return { npm, firstLine };
}

describe('a command whose launcher goes away', () => {
  it('npm run lab: the lab, its relays and its v2ray core stop', async () => {
    const { npm, firstLine } = npmRun('lab', ['--servers', '2', '--subscriptions', '1']);
    await firstLine;
    const below = descendants(npm.pid!);
    expect(below.filter((p) => /^\S*v2ray /.test(p.command)).length).toBeGreaterThan(0);
    npm.kill('SIGKILL');
    await expect.poll(() => below.filter((p) => isRunning(p.pid)).map((p) => p.command), { timeout: 20_000, interval: 200 }).toEqual([]);
  });

  it('npm run headless: the engine and the host stop', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'launcher-gone-'));
    try {
      const { npm, firstLine } = npmRun('headless', ['--data-dir', dataDir], { STEADFAST_DATA_DIR: dataDir });
      await firstLine;
      const below = descendants(npm.pid!);
      expect(below.some((p) => p.command.includes('main/headless/main.ts'))).toBe(true);
      npm.kill('SIGKILL');
      await expect.poll(() => below.filter((p) => isRunning(p.pid)).map((p) => p.command), { timeout: 20_000, interval: 200 }).toEqual([]);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
