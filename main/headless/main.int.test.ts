/**
 * `npm run headless -- --settings FILE` as a user (or the demo's scripts) runs it: the monitor's
 * transfer test downloads from where the file says (the lab's /bytes/N) instead of the public
 * default, and a file that does not validate stops the host before anything starts.
 */
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { TOKEN_PARAM, WS_PATH } from '../../shared/ipc/wire';
import { type Lab, spawnLab } from '../../e2e/lab';
import { runEntry } from '../testing/entry-run';
import { ensureRendererBuilt } from './renderer-build';

let lab: Lab['info'];
let stopLab: () => Promise<void>;
let dataDir: string;

beforeAll(async () => {
  // The host serves the built renderer; a build here keeps it out of the host's start-up time.
  await ensureRendererBuilt();
  ({ info: lab, stop: stopLab } = await spawnLab(['--servers', '3', '--subscriptions', '1']));
  dataDir = await mkdtemp(join(tmpdir(), 'steadfast-headless-settings-'));
}, 240_000);

afterAll(async () => {
  await stopLab?.();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

describe('npm run headless -- --settings FILE', () => {
  it('points the transfer test at the lab: the transfer test of each of its three servers passes through it', async () => {
    const settingsFile = join(dataDir, 'lab-settings.json');
    // Every server transfer-tested (not only those in Auto's focus: nothing is connected here), from the file's URL.
    await writeFile(settingsFile, JSON.stringify({ monitor: { ipInfoUrls: lab.ipinfoUrls, transferTestUrl: `${lab.bytes}/{bytes}`, transferTestEveryServer: true } }));
    const host = runEntry('main/headless/main.ts', ['--subscription', lab.subscriptions[0]!.url, '--test-url', lab.target, '--settings', settingsFile, '--data-dir', join(dataDir, 'profile'), '--port', '0']);
    try {
      // As the page's "Test all" would: through the host's WebSocket, with this run's token.
      const pageUrl = new URL(await new Promise<string>((resolve) => host.child.stdout!.on('data', () => {
        const line = host.out().split('\n').find((l) => l.startsWith('http://'));
        if (line) resolve(line.trim());
      })));
      const socket = new WebSocket(`ws://${pageUrl.host}${WS_PATH}?${TOKEN_PARAM}=${encodeURIComponent(pageUrl.searchParams.get(TOKEN_PARAM) ?? '')}`);
      await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
      socket.send(JSON.stringify({ kind: 'invoke', id: 1, channel: 'testAll', payload: {} }));
      const transferLines = await new Promise<string[]>((resolve, reject) => {
        const timer = setInterval(() => {
          const lines = host.err().split('\n').filter((line) => line.includes('transfer test of'));
          if (lines.length >= 3) {
            clearInterval(timer);
            resolve(lines);
          }
        }, 100);
        host.child.once('exit', (code) => {
          clearInterval(timer);
          reject(new Error(`the host exited (${code}):\n${host.err().slice(-2000)}`));
        });
        setTimeout(() => {
          clearInterval(timer);
          reject(new Error(`no transfer test within 45 s:\n${host.err().slice(-2000)}`));
        }, 45_000);
      });
      socket.close();
      // The public default (speed.cloudflare.com) cannot answer here: "ok" is the lab's answer.
      for (const line of transferLines) expect(line).toMatch(/transfer test of .*: ok, 64\.0 KB at/);
    } finally {
      host.kill('SIGTERM');
      await host.exited;
    }
  });

  it('refuses a file that does not validate with exit code 2, naming the field, before anything starts', async () => {
    const settingsFile = join(dataDir, 'bad-settings.json');
    await writeFile(settingsFile, JSON.stringify({ monitor: { transferTestUrl: `${lab.bytes}/65536` } }));
    const profile = join(dataDir, 'never-used');
    const host = runEntry('main/headless/main.ts', ['--settings', settingsFile, '--data-dir', profile, '--port', '0']);
    expect(await host.exited).toBe(2);
    expect(host.err()).toMatch(/monitor\.transferTestUrl: must contain \{bytes\}/);
    await expect(readdir(profile)).rejects.toThrow(/ENOENT/);
  });
});
