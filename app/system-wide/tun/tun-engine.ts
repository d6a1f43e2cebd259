import { constants } from 'node:fs';
import { access, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { runCore, withScratchDir } from '../../core/run-core';
import { tunEngineRefusal, tunEngineVersion } from './policy/sing-box-tun';

/** The TUN engine found and usable: where it is and which sing-box it is. */
export interface TunEngine {
  path: string;
  version: string;
}

export interface TunEngineSearch {
  /** The folder holding `core/` (the bundled cores): sing-box is installed beside them. */
  resourcesDir?: string;
  platform?: NodeJS.Platform;
  arch?: string;
  env?: NodeJS.ProcessEnv;
}

/**
 * Where sing-box is looked for, in order: the bundled cores' folders, as the cores themselves
 * are found (`core/<platform>-<arch>/`, `core/<platform>/`, `core/`), then PATH.
 */
export function tunEngineCandidates(o: TunEngineSearch): string[] {
  const platform = o.platform ?? process.platform;
  const arch = o.arch ?? process.arch;
  const env = o.env ?? process.env;
  const name = platform === 'win32' ? 'sing-box.exe' : 'sing-box';
  const bundled = o.resourcesDir ? [join(o.resourcesDir, 'core', `${platform}-${arch}`), join(o.resourcesDir, 'core', platform), join(o.resourcesDir, 'core')] : [];
  const pathVar = (platform === 'win32' ? (env.Path ?? env.PATH) : env.PATH) ?? '';
  const onPath = pathVar.split(platform === 'win32' ? ';' : ':').filter(Boolean);
  return [...bundled, ...onPath].map((dir) => join(dir, name));
}

/**
 * Finds sing-box and checks it can be the TUN engine; throws, in the user's terms, when it is
 * missing, is not sing-box, or is too old for the config this app writes.
 */
export async function findTunEngine(o: TunEngineSearch): Promise<TunEngine> {
  const platform = o.platform ?? process.platform;
  const candidates = tunEngineCandidates(o);
  let path: string | undefined;
  for (const candidate of candidates) {
    if (await isExecutableFile(candidate, platform)) {
      path = candidate;
      break;
    }
  }
  if (!path) {
    const where = o.resourcesDir ? `${join(o.resourcesDir, 'core')} or PATH` : 'PATH';
    throw new Error(`system-wide mode needs the TUN engine sing-box, and none was found in ${where}: reinstall the app (its installer carries sing-box) or use system-proxy mode`);
  }
  const found = path;
  const output = await withScratchDir(async (dir) => (await runCore(found, ['version'], dir, 5000)).output);
  const version = tunEngineVersion(output);
  if (!version) throw new Error(`${found} is not sing-box; it printed: ${(output.split('\n').find((line) => line.trim()) ?? '(nothing)').slice(0, 200)}`);
  const refusal = tunEngineRefusal(version);
  if (refusal) throw new Error(`${refusal}: ${found}`);
  return { path: found, version };
}

async function isExecutableFile(path: string, platform: NodeJS.Platform): Promise<boolean> {
  try {
    if (!(await stat(path)).isFile()) return false;
    if (platform !== 'win32') await access(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}
