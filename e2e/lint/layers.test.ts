import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

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
  ])('%s: the forbidden import fails the lint', async (file, code) => {
    expect(await ruleIdsFor(file, code)).toContain('no-restricted-imports');
  });

  it.each([
    ['app/auto/policy/x.ts', 'export const now = () => Date.now();\n', 'no-restricted-properties'],
    ['app/auto/policy/x.ts', 'export const r = () => Math.random();\n', 'no-restricted-properties'],
    ['app/auto/policy/x.ts', 'export const t = (f: () => void) => setTimeout(f, 1);\n', 'no-restricted-globals'],
    ['app/auto/policy/x.ts', 'export const d = () => new Date();\n', 'no-restricted-syntax'],
    ['app/auto/policy/x.ts', "import { readFile } from 'node:fs/promises';\nexport const x = readFile;\n", 'no-restricted-imports'],
  ])('%s: impure policy code fails the lint (%#)', async (file, code, rule) => {
    expect(await ruleIdsFor(file, code)).toContain(rule);
  });

  it.each([
    ['shared/x.ts', "import { z } from 'zod';\nimport type { Server } from './domain/server';\nexport const s = z.string();\nexport type S = Server;\n"],
    ['app/core/x.ts', "import { spawn } from 'node:child_process';\nimport type { Server } from '../../shared/domain/server';\nexport const x = spawn;\nexport type S = Server;\n"],
    ['main/electron/window.ts', "import { BrowserWindow } from 'electron';\nexport const x = BrowserWindow;\n"],
    ['renderer/src/x.ts', "import type { VpnClient } from '../../shared/ipc/contract';\nexport type C = VpnClient;\n"],
  ])('%s: an allowed import passes', async (file, code) => {
    expect(await ruleIdsFor(file, code)).toEqual([]);
  });
});
