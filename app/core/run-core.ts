import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { atLeast, type CoreFamily } from './version';

export interface RunResult {
  code: number | null;
  output: string;
}

/**
 * Runs the core binary briefly (version queries, config tests) with a hard timeout, stdin
 * closed and an empty working directory: v2ray 4 treats an unknown word as "start with the
 * default config", and an empty cwd means there is none to find.
 */
export function runCore(path: string, args: string[], cwd: string, timeoutMs = 5000): Promise<RunResult> {
  return new Promise((resolve) => {
    execFile(path, args, { cwd, timeout: timeoutMs, killSignal: 'SIGKILL', maxBuffer: 1 << 20, windowsHide: true }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : null) : 0;
      resolve({ code, output: `${stdout}${stderr}` });
    });
  });
}

/** The arguments that make each family test a config file without starting it. */
export function configTestArgs(family: CoreFamily, version: string, file: string): string[] {
  switch (family) {
    case 'v2ray':
      return atLeast(version, '5.0.0') ? ['test', '-c', file] : ['-test', '-config', file];
    case 'xray':
      return ['run', '-test', '-c', file];
    case 'sing-box':
      return ['check', '-c', file];
  }
}

/** A scratch folder for a batch of core runs, removed afterwards. */
export async function withScratchDir<T>(fn: (dir: string) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(join(tmpdir(), 'steadfast-core-'));
  try {
    return await fn(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Tests one config with the core's own checker; `ok` when the core accepts it. */
export async function testConfig(
  core: { path: string; family: CoreFamily; version: string },
  config: object,
  dir: string,
  name: string,
): Promise<{ ok: boolean; message: string }> {
  const file = join(dir, `${name}.json`);
  await writeFile(file, JSON.stringify(config), { mode: 0o600 });
  const result = await runCore(core.path, configTestArgs(core.family, core.version, file), dir);
  return { ok: result.code === 0, message: lastMeaningfulLine(result.output) };
}

function lastMeaningfulLine(output: string): string {
  const lines = output.split('\n').map((l) => l.trim()).filter(Boolean);
  return lines[lines.length - 1] ?? '';
}

/** The arguments that start the core with a config file. */
export function coreRunArgs(core: { family: CoreFamily; version: string }, file: string): string[] {
  switch (core.family) {
    case 'v2ray':
      return atLeast(core.version, '5.0.0') ? ['run', '-c', file] : ['-config', file];
    case 'xray':
      return ['run', '-c', file];
    case 'sing-box':
      return ['run', '-c', file];
  }
}

/**
 * Environment the core runs with, beside the app's own. Xray's `freedom` outbound splices a plain
 * TCP connection to a plain inbound (zero-copy) and adds the bytes to its traffic counters only
 * when the connection ends, so a direct download read 0 bytes for as long as it lasted (found with
 * Xray 26.3.27, routing.int.test.ts); without splicing it counts every buffer, as v2ray does.
 */
export function coreRunEnvironment(core: { family: CoreFamily }, assetDir?: string): Record<string, string> {
  return { ...(core.family === 'xray' ? { XRAY_BUF_SPLICE: 'disable' } : {}), ...(assetDir ? assetLocation(assetDir) : {}) };
}

/** Xray and v2ray read `ext:FILE:LIST` files only from their asset folder, which only the environment sets. */
export function assetLocation(dir: string): Record<string, string> {
  return { XRAY_LOCATION_ASSET: dir, V2RAY_LOCATION_ASSET: dir };
}
