import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { EVENT_NAMES, INVOKE_CHANNELS } from '../../../shared/ipc/contract';
import { loadEngineBundle } from '../engine-loader';
import { loadTrayFlags } from '../tray-flags';
import { bundleEngine, bundleMain, bundlePreload, copyRuntimeAssets, requiredModules, RUNTIME_ICONS } from './bundle';

const root = process.cwd();
const out = () => mkdtempSync(join(tmpdir(), 'bundle-'));
const packageJson = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };

describe('the preload bundle', () => {
  it('is one CommonJS file that needs nothing but electron, and works in a sandbox where only electron can be required', async () => {
    const outDir = out();
    await bundlePreload({ root, outDir });
    const code = readFileSync(join(outDir, 'main', 'preload.cjs'), 'utf8');
    expect(requiredModules(code)).toEqual(['electron']);

    // A sandboxed preload: no Node globals, `require` answers only for "electron".
    const exposed: [string, Record<string, unknown>][] = [];
    const invoked: unknown[][] = [];
    const electron = {
      contextBridge: { exposeInMainWorld: (name: string, api: Record<string, unknown>) => exposed.push([name, api]) },
      ipcRenderer: { invoke: (...args: unknown[]) => invoked.push(args), on: () => undefined, removeListener: () => undefined },
    };
    const sandboxRequire = (name: string) => {
      if (name === 'electron') return electron;
      throw new Error(`module not found: ${name}`);
    };
    const module = { exports: {} };
    runInNewContext(code, { require: sandboxRequire, module, exports: module.exports, console });
    expect(exposed.map(([name]) => name)).toEqual(['vpn']);
    const api = exposed[0]![1];
    expect(Object.keys(api).sort()).toEqual([...INVOKE_CHANNELS, 'on'].sort());
    (api.connect as (r: unknown) => void)({ serverId: 's1' });
    expect(invoked).toEqual([['vpn:connect', { serverId: 's1' }]]);
    expect(() => (api.on as (e: string, l: () => void) => void)('nope', () => undefined)).toThrow(/unknown event/);
    for (const event of EVENT_NAMES) expect(typeof (api.on as (e: string, l: () => void) => unknown)(event, () => undefined)).toBe('function');
  });
});

describe('the main bundle', () => {
  it('needs only electron, Node built-ins and the app’s runtime dependencies (never a dev dependency or a source file)', async () => {
    const outDir = out();
    const { metafile } = await bundleMain({ root, outDir });
    const code = readFileSync(join(outDir, 'main', 'electron.cjs'), 'utf8');
    const allowed = new Set(['electron', ...builtinModules, ...builtinModules.map((m) => `node:${m}`), ...Object.keys(packageJson.dependencies)]);
    const outside = requiredModules(code).filter((name) => !allowed.has(name) && !allowed.has(name.split('/').slice(0, name.startsWith('@') ? 2 : 1).join('/')));
    expect(outside).toEqual([]);
    // The engine is not inside: it is its own bundle, loaded when the app is ready. The shell
    // knows the engine's type only, and system-proxy mode is the engine's (the shell brings the
    // OS command runner alone).
    expect(code).toContain('engine.cjs');
    const sources = Object.keys(metafile!.inputs);
    expect(sources.filter((path) => path.startsWith('app/engine/'))).toEqual([]);
    expect(sources.filter((path) => path.startsWith('app/system-proxy/'))).toEqual(['app/system-proxy/exec-runner.ts']);
  });
});

describe('the engine bundle', () => {
  it('is refused with a clear reason when app/engine has not been written', async () => {
    const emptyRoot = out();
    await expect(bundleEngine({ root: emptyRoot, outDir: out() })).rejects.toThrow(/app\/engine\/index\.ts is missing: the engine's composition root \(createEngine\)/);
  });

  it('bundles app/engine/index.ts (import.meta included) so the shell can load createEngine from it', async () => {
    const fixture = out();
    mkdirSync(join(fixture, 'app', 'engine'), { recursive: true });
    writeFileSync(
      join(fixture, 'app', 'engine', 'index.ts'),
      "export async function createEngine(options: { dataDir: string }) { return { dataDir: options.dataDir, from: import.meta.url, dir: import.meta.dirname }; }\n",
    );
    const outDir = out();
    await bundleEngine({ root: fixture, outDir });
    const createEngine = (await loadEngineBundle(join(outDir, 'main'))) as unknown as (o: { dataDir: string }) => Promise<Record<string, string>>;
    const engine = await createEngine({ dataDir: '/data' });
    expect(engine).toEqual({ dataDir: '/data', from: pathToFileURL(join(outDir, 'main', 'engine.cjs')).href, dir: join(outDir, 'main') });
  });

  it('the loader says what is wrong with a missing or foreign bundle', async () => {
    const dir = out();
    await expect(loadEngineBundle(dir)).rejects.toThrow(/engine\.cjs is missing: run "npm run build"/);
    writeFileSync(join(dir, 'engine.cjs'), 'exports.somethingElse = 1;\n');
    await expect(loadEngineBundle(dir)).rejects.toThrow(/does not export createEngine/);
  });
});

describe('runtime icons', () => {
  it('are copied into dist/assets as real PNGs of the sizes trays and windows expect', async () => {
    const outDir = out();
    const files = await copyRuntimeAssets({ root, outDir });
    expect(files.map((f) => f.slice(outDir.length + 1))).toEqual(RUNTIME_ICONS.map((n) => join('assets', n)));
    const size = (name: string) => {
      const data = readFileSync(join(outDir, 'assets', name));
      expect(data.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
      return [data.readUInt32BE(16), data.readUInt32BE(20)];
    };
    expect(size('icon.png')).toEqual([512, 512]);
    expect(size('tray-connected.png')).toEqual([32, 32]);
    expect(size('tray-disconnected.png')).toEqual([32, 32]);
    expect(size('trayTemplate.png')).toEqual([16, 16]);
    expect(size('trayTemplate@2x.png')).toEqual([32, 32]);
    // The tray menu's flags come along, each at 1x and 2x.
    expect(size(join('flags', 'DE.png'))).toEqual([24, 16]);
    expect(size(join('flags', 'DE@2x.png'))).toEqual([48, 32]);
    expect(loadTrayFlags(join(outDir, 'assets', 'flags'))('JP')).toBe(join(outDir, 'assets', 'flags', 'JP.png'));
  });
});
