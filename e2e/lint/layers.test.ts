import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { ESLint } from 'eslint';
import { execa } from 'execa';
import { afterAll, describe, expect, it } from 'vitest';

// The architecture's layer rules only matter if lint actually refuses a violation.
const eslint = new ESLint({ cwd: process.cwd() });

async function ruleIdsFor(filePath: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath });
  return (result?.messages ?? []).map((m) => m.ruleId ?? m.message);
}

describe('layer rules', () => {
  it.each([
    ['shared/domain/x.ts', "import { readFileSync } from 'node:fs';\nexport const x = readFileSync;\n"],
    ['shared/x.ts', "import { request } from 'undici';\nexport const x = request;\n"],
    ['shared/x.ts', "import { x } from '../app/core/y';\nexport const z = x;\n"],
    ['app/core/x.ts', "import { app } from 'electron';\nexport const x = app;\n"],
    ['app/monitor/x.ts', "import { y } from '../../main/headless/y';\nexport const x = y;\n"],
    ['renderer/src/x.ts', "import { y } from '../../app/auto/y';\nexport const x = y;\n"],
    ['renderer/src/x.ts', "import { y } from '../../main/electron/y';\nexport const x = y;\n"],
    ['renderer/src/x.ts', "import { readFile } from 'node:fs/promises';\nexport const x = readFile;\n"],
    ['main/headless/x.ts', "import { BrowserWindow } from 'electron';\nexport const x = BrowserWindow;\n"],
    ['main/electron/window.ts', "import { ipcMain } from 'electron';\nexport const x = ipcMain;\n"],
    ['main/electron/tray.ts', "import { App } from '../../renderer/src/components/App';\nexport const x = App;\n"],
    ['main/electron/tray.ts', "import { en } from '../../renderer/src/i18n/locales/en';\nexport const x = en;\n"],
  ])('%s: the forbidden import fails the lint', async (file, code) => {
    expect(await ruleIdsFor(file, code)).toContain('no-restricted-imports');
  });

  it.each([
    ['app/auto/policy/x.ts', 'export const now = () => Date.now();\n', 'no-restricted-properties'],
    ['app/auto/policy/x.ts', 'export const r = () => Math.random();\n', 'no-restricted-properties'],
    ['app/auto/policy/x.ts', 'export const t = (f: () => void) => setTimeout(f, 1);\n', 'no-restricted-globals'],
    ['app/auto/policy/x.ts', 'export const d = () => new Date();\n', 'no-restricted-syntax'],
    ['app/auto/policy/x.ts', "import { readFile } from 'node:fs/promises';\nexport const x = readFile;\n", 'no-restricted-imports'],
    // The policy block adds to the engine's bans rather than replacing them.
    ['app/auto/policy/x.ts', "import { startLab } from '../../../e2e/lab';\nexport const x = startLab;\n", 'no-restricted-imports'],
    ['app/monitor/policy/x.ts', "import { App } from '../../../renderer/src/components/App';\nexport const x = App;\n", 'no-restricted-imports'],
  ])('%s: impure policy code fails the lint (%#)', async (file, code, rule) => {
    expect(await ruleIdsFor(file, code)).toContain(rule);
  });

  it.each([
    ['shared/x.ts', "import { z } from 'zod';\nimport type { Server } from './domain/server';\nexport const s = z.string();\nexport type S = Server;\n"],
    ['app/core/x.ts', "import { spawn } from 'node:child_process';\nimport type { Server } from '../../shared/domain/server';\nexport const x = spawn;\nexport type S = Server;\n"],
    ['main/electron/window.ts', "import { BrowserWindow } from 'electron';\nexport const x = BrowserWindow;\n"],
    ['main/electron/tray-text.ts', "import { CATALOGUE } from '../../renderer/src/i18n/catalogue';\nexport const x = CATALOGUE;\n"],
    ['renderer/src/x.ts', "import type { VpnClient } from '../../shared/ipc/contract';\nexport type C = VpnClient;\n"],
  ])('%s: an allowed import passes', async (file, code) => {
    expect(await ruleIdsFor(file, code)).toEqual([]);
  });
});

// The rules across files (cycles, testing/ folders, the allow-list per app/ folder) are
// dependency-cruiser's, run by `npm run lint` with the repository's own config.
describe('import rules across files', () => {
  const world = mkdtempSync(join(tmpdir(), 'layers-'));
  afterAll(() => rmSync(world, { recursive: true, force: true }));

  async function violations(files: Record<string, string>, folders = ['app']): Promise<{ exitCode: number | undefined; rules: string[] }> {
    const dir = mkdtempSync(join(world, 'case-'));
    writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions: { module: 'esnext', moduleResolution: 'bundler' } }));
    for (const [path, code] of Object.entries(files)) {
      mkdirSync(dirname(join(dir, path)), { recursive: true });
      writeFileSync(join(dir, path), code);
    }
    const result = await execa(join(process.cwd(), 'node_modules', '.bin', 'depcruise'), ['--config', join(process.cwd(), '.dependency-cruiser.cjs'), ...folders], { cwd: dir, reject: false });
    // The report `npm run lint` prints: one `error <rule>: <from> → <to>` per violation.
    return { exitCode: result.exitCode, rules: [...result.stdout.matchAll(/^\s*error (\S+):/gm)].map((m) => m[1] as string) };
  }

  it('an import cycle fails', async () => {
    const found = await violations({
      'app/monitor/a.ts': "import { b } from './b';\nexport const a = () => b;\n",
      'app/monitor/b.ts': "import { a } from './a';\nexport const b = () => a;\n",
    });
    expect(found.exitCode).not.toBe(0);
    expect(found.rules).toContain('no-circular');
  }, 60_000);

  it("an import its folder's allow-list does not name fails: the tunnel reaching up into the monitor", async () => {
    const found = await violations({
      'app/monitor/results.ts': 'export const r = 1;\n',
      'app/tunnel/prober.ts': "import { r } from '../monitor/results';\nexport const p = r;\n",
    });
    expect(found.exitCode).not.toBe(0);
    expect(found.rules).toEqual(['app-tunnel-layer']);
  }, 60_000);

  it('routing reaching into the monitor fails: app/routing has its own allow-list', async () => {
    const found = await violations({
      'app/monitor/results.ts': 'export const r = 1;\n',
      'app/routing/service.ts': "import { r } from '../monitor/results';\nexport const s = r;\n",
    });
    expect(found.rules).toEqual(['app-routing-layer']);
  }, 60_000);

  it('a folder of app/ without a layer entry may not import the rest of app/ until it is given one', async () => {
    const found = await violations({
      'app/monitor/results.ts': 'export const r = 1;\n',
      'app/newcomer/own.ts': 'export const o = 1;\n',
      'app/newcomer/x.ts': "import { r } from '../monitor/results';\nimport { o } from './own';\nexport const x = r + o;\n",
    });
    expect(found.rules).toEqual(['app-folder-without-layer']);
  }, 60_000);

  it('engine code importing the hosts, the UI or the lab fails; its tests may use the lab', async () => {
    const found = await violations(
      {
        'e2e/lab/index.ts': 'export const startLab = () => 1;\n',
        'main/cli/x.ts': 'export const cli = 1;\n',
        'app/core/uses-lab.ts': "import { startLab } from '../../e2e/lab';\nexport const x = startLab;\n",
        'app/core/uses-cli.ts': "import { cli } from '../../main/cli/x';\nexport const y = cli;\n",
        'app/core/lab.int.test.ts': "import { startLab } from '../../e2e/lab';\nexport const z = startLab;\n",
      },
      ['app', 'main', 'e2e'],
    );
    expect(found.rules).toEqual(['engine-stays-below-hosts', 'engine-stays-below-hosts']);
  }, 60_000);

  it('production code importing a testing/ folder fails; a test may', async () => {
    const found = await violations({
      'app/core/testing/profile.ts': 'export const fake = 1;\n',
      'app/core/index.ts': "import { fake } from './testing/profile';\nexport const x = fake;\n",
      'app/core/index.test.ts': "import { fake } from './testing/profile';\nexport const y = fake;\n",
    });
    expect(found.exitCode).not.toBe(0);
    expect(found.rules).toEqual(['testing-only-from-tests']);
  }, 60_000);

  it('the Electron shell importing engine code fails (the engine is its own bundle); its type passes', async () => {
    const files = { 'app/engine/index.ts': 'export type Engine = { stop(): void };\nexport const createEngine = () => 1;\n' };
    const code = await violations({ ...files, 'main/electron/app.ts': "import { createEngine } from '../../app/engine';\nexport const x = createEngine;\n" }, ['app', 'main']);
    expect(code.rules).toEqual(['shell-loads-engine-bundle']);
    const type = await violations({ ...files, 'main/electron/app.ts': "import type { Engine } from '../../app/engine';\nexport type X = Engine;\n" }, ['app', 'main']);
    expect(type).toEqual({ exitCode: 0, rules: [] });
  }, 60_000);

  it('allowed imports pass', async () => {
    const found = await violations({
      'app/tunnel/index.ts': 'export const t = 1;\n',
      'app/reachability/x.ts': "import { t } from '../tunnel';\nexport const x = t;\n",
    });
    expect(found).toEqual({ exitCode: 0, rules: [] });
  }, 60_000);
});
