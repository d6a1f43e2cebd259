/**
 * `npm run headless -- --settings FILE` as a user (or the demo's scripts) runs it: the monitor's
 * transfer test downloads from where the file says (the lab's /bytes/N) instead of the public
 * default, and a file that does not validate stops the host before anything starts.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { TOKEN_PARAM, WS_PATH } from '../../shared/ipc/wire';
import { ensureRendererBuilt } from './renderer-build';

interface LabLine {
  subscriptions: { id: string; url: string }[];
  target: string;
  ipinfoUrls: Record<string, string>;
  bytes: string;
}

let labProcess: ChildProcess;
let lab: LabLine;
let dataDir: string;

async function stopped(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const gone = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await gone;
}

beforeAll(async () => {
  // The host serves the built renderer; a build here keeps it out of the host's start-up time.
  await ensureRendererBuilt();
  labProcess = spawn(process.execPath, ['--import', 'tsx', 'e2e/lab/main.ts', '--servers', '3', '--subscriptions', '1'], { stdio: ['ignore', 'pipe', 'inherit'] });
  lab = await new Promise<LabLine>((resolve, reject) => {
    let out = '';
    labProcess.stdout!.on('data', (d) => {
      out += String(d);
      const line = out.split('\n').find((l) => l.startsWith('{'));
      if (line && out.includes('\n')) resolve(JSON.parse(line) as LabLine);
    });
    labProcess.once('exit', (code) => reject(new Error(`the lab exited (${code})`)));
  });
  dataDir = await mkdtemp(join(tmpdir(), 'steadfast-headless-settings-'));
}, 240_000);

afterAll(async () => {
  if (labProcess) await stopped(labProcess);
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

describe('npm run headless -- --settings FILE', () => {
  it('points the transfer test at the lab: the transfer test of each of its three servers passes through it', async () => {
    const settingsFile = join(dataDir, 'lab-settings.json');
    await writeFile(settingsFile, JSON.stringify({ monitor: { ipInfoUrls: lab.ipinfoUrls, transferTestUrl: `${lab.bytes}/{bytes}` } }));
    const host = spawn(
      process.execPath,
      ['--import', 'tsx', 'main/headless/main.ts', '--subscription', lab.subscriptions[0]!.url, '--test-url', lab.target, '--settings', settingsFile, '--data-dir', join(dataDir, 'profile'), '--port', '0'],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    try {
      let log = '';
      host.stderr!.on('data', (d) => (log += String(d)));
      let out = '';
      host.stdout!.on('data', (d) => (out += String(d)));
      // As the page's "Test all" would: through the host's WebSocket, with this run's token.
      const pageUrl = new URL(await new Promise<string>((resolve) => host.stdout!.on('data', () => {
        const line = out.split('\n').find((l) => l.startsWith('http://'));
        if (line) resolve(line.trim());
      })));
      const socket = new WebSocket(`ws://${pageUrl.host}${WS_PATH}?${TOKEN_PARAM}=${encodeURIComponent(pageUrl.searchParams.get(TOKEN_PARAM) ?? '')}`);
      await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
      socket.send(JSON.stringify({ kind: 'invoke', id: 1, channel: 'testAll', payload: {} }));
      const transferLines = await new Promise<string[]>((resolve, reject) => {
        const timer = setInterval(() => {
          const lines = log.split('\n').filter((line) => line.includes('transfer test of'));
          if (lines.length >= 3) {
            clearInterval(timer);
            resolve(lines);
          }
        }, 100);
        host.once('exit', (code) => {
          clearInterval(timer);
          reject(new Error(`the host exited (${code}):\n${log.slice(-2000)}`));
        });
        setTimeout(() => {
          clearInterval(timer);
          reject(new Error(`no transfer test within 45 s:\n${log.slice(-2000)}`));
        }, 45_000);
      });
      socket.close();
      // The public default (speed.cloudflare.com) cannot answer here: "ok" is the lab's answer.
      for (const line of transferLines) expect(line).toMatch(/transfer test of .*: ok, 64\.0 KB at/);
    } finally {
      await stopped(host);
    }
  });

  it('refuses a file that does not validate with exit code 2, naming the field, before anything starts', async () => {
    const settingsFile = join(dataDir, 'bad-settings.json');
    await writeFile(settingsFile, JSON.stringify({ monitor: { transferTestUrl: `${lab.bytes}/65536` } }));
    const profile = join(dataDir, 'never-used');
    const host = spawn(process.execPath, ['--import', 'tsx', 'main/headless/main.ts', '--settings', settingsFile, '--data-dir', profile, '--port', '0'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let errors = '';
    host.stderr!.on('data', (d) => (errors += String(d)));
    const code = await new Promise<number | null>((resolve) => host.once('exit', resolve));
    expect(code).toBe(2);
    expect(errors).toMatch(/monitor\.transferTestUrl: must contain \{bytes\}/);
    await expect(readdir(profile)).rejects.toThrow(/ENOENT/);
  });
});
