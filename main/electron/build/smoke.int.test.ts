import { IDLE_SPEED_TEST } from '../../../shared/domain/speed-test';
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { INVOKE_CHANNELS } from '../../../shared/ipc/contract';
import { bundleMain, bundlePreload, copyRuntimeAssets } from './bundle';

// The real bundle (dist/main/electron.cjs as `npm run build` makes it) started as a process, with
// the test's Electron stand-in answering `require('electron')` (the binary cannot run here) and a
// small engine bundle beside it: the paths, the engine loading and the quit sequence of the
// built app, end to end.

const root = process.cwd();

/** The engine stand-in, as a CommonJS bundle like the real one. */
const ENGINE = `
exports.createEngine = async (options) => {
  process.stdout.write(JSON.stringify({ engineCreated: { dataDir: options.dataDir, resourcesDir: options.resourcesDir } }) + '\\n');
  const channels = ${JSON.stringify(INVOKE_CHANNELS)};
  const engine = { on: () => () => undefined, stop: async () => { process.stdout.write(JSON.stringify({ engineStopped: true }) + '\\n'); } };
  for (const c of channels) engine[c] = async () => (c === 'getSnapshot' ? {
    subscriptions: [], statuses: {}, unsupported: {}, core: null, demo: false,
    connection: { state: 'disconnected', serverId: null, httpProxy: null, socksProxy: null, since: null, error: null, core: null },
    auto: { subscriptionId: null, excluded: {}, returnCandidate: null, networkLostUntil: null, timeline: [] },
    settings: { language: 'system', mode: 'proxy' },
    testProgress: { running: false, done: 0, total: 0 },
    speedTest: ${JSON.stringify(IDLE_SPEED_TEST)},
  } : null);
  return engine;
};
`;

/** Makes `require('electron')` return the test's stand-in, ready at once, reporting what the app did. */
const HOOK = (fakeBundle: string) => `
const Module = require('node:module');
const original = Module._resolveFilename;
const fakeFile = ${JSON.stringify(join(fakeBundle, 'electron-shim.cjs'))};
Module._resolveFilename = function (request, ...rest) {
  return request === 'electron' ? fakeFile : original.call(this, request, ...rest);
};
`;
const SHIM = `
const { fake, fakeElectronModule, FakeBrowserWindow, FakeTray } = require('./fake-electron.cjs');
module.exports = fakeElectronModule();
fake.app.makeReady();
const report = () => {
  const w = FakeBrowserWindow.instances[0];
  return {
    window: w ? { loaded: w.loaded, preload: w.options.webPreferences.preload, sandbox: w.options.webPreferences.sandbox } : null,
    handlers: fake.ipcMain.handlers.size,
    tray: FakeTray.instances[0] ? FakeTray.instances[0].images : null,
  };
};
let reported = false;
const timer = setInterval(() => {
  if (!reported && FakeBrowserWindow.instances.length > 0) {
    reported = true;
    process.stdout.write(JSON.stringify({ started: report() }) + '\\n');
  }
  if (fake.app.exited) {
    clearInterval(timer);
    process.stdout.write(JSON.stringify({ exited: true, trayDestroyed: FakeTray.instances.every((t) => t.destroyed) }) + '\\n');
    process.exit(0);
  }
}, 20);
`;

describe('the built main process', () => {
  it('starts: loads the engine bundle beside it, opens the window on the built UI with the built preload, and quits cleanly on SIGTERM', async () => {
    const outDir = mkdtempSync(join(tmpdir(), 'smoke-'));
    await bundleMain({ root, outDir });
    await bundlePreload({ root, outDir });
    await copyRuntimeAssets({ root, outDir });
    writeFileSync(join(outDir, 'main', 'engine.cjs'), ENGINE);
    mkdirSync(join(outDir, 'renderer'));
    writeFileSync(join(outDir, 'renderer', 'index.html'), '<!doctype html><title>ui</title>');

    const fakeDir = join(outDir, 'fake');
    await build({ entryPoints: [join(root, 'main', 'electron', 'testing', 'fake-electron.ts')], outfile: join(fakeDir, 'fake-electron.cjs'), bundle: true, platform: 'node', format: 'cjs', logLevel: 'silent' });
    writeFileSync(join(fakeDir, 'electron-shim.cjs'), SHIM);
    writeFileSync(join(fakeDir, 'hook.cjs'), HOOK(fakeDir));

    // A throw-away home and data folder, no session bus: nothing of this machine's user is touched.
    const home = join(outDir, 'home');
    const dataDir = join(outDir, 'data');
    const child = spawn(process.execPath, ['-r', join(fakeDir, 'hook.cjs'), join(outDir, 'main', 'electron.cjs')], {
      // NODE_PATH: the runtime dependencies come from the project's node_modules, as in an installed app.
      env: { PATH: process.env.PATH, HOME: home, XDG_CONFIG_HOME: join(home, '.config'), STEADFAST_DATA_DIR: dataDir, NODE_PATH: join(root, 'node_modules') },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const messages: Record<string, unknown>[] = [];
    let stderr = '';
    child.stderr.on('data', (c) => (stderr += String(c)));
    let buffer = '';
    child.stdout.on('data', (chunk) => {
      buffer += String(chunk);
      let nl: number;
      while ((nl = buffer.indexOf('\n')) >= 0) {
        messages.push(JSON.parse(buffer.slice(0, nl)) as Record<string, unknown>);
        buffer = buffer.slice(nl + 1);
      }
    });
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    const waitFor = async (key: string) => {
      for (let i = 0; i < 300 && !messages.some((m) => key in m); i++) await new Promise((r) => setTimeout(r, 50));
      const found = messages.find((m) => key in m);
      if (!found) throw new Error(`no "${key}" from the app; stderr: ${stderr}`);
      return found[key];
    };

    expect(await waitFor('engineCreated')).toEqual({ dataDir, resourcesDir: join(outDir, '..', 'resources') });
    expect(await waitFor('started')).toEqual({
      window: { loaded: { file: join(outDir, 'renderer', 'index.html') }, preload: join(outDir, 'main', 'preload.cjs'), sandbox: true },
      handlers: INVOKE_CHANNELS.length,
      tray: [join(outDir, 'assets', 'tray-disconnected.png')],
    });

    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(messages.map((m) => Object.keys(m)[0])).toEqual(['engineCreated', 'started', 'engineStopped', 'exited']);
    expect(messages.at(-1)).toEqual({ exited: true, trayDestroyed: true });
  });
});
