import { constants } from 'node:fs';
import { access, stat } from 'node:fs/promises';
import { join } from 'node:path';

export type CoreSource = 'setting' | 'bundled' | 'path';
export type LocateResult = { path: string; source: CoreSource } | { error: string };

export interface LocateOptions {
  /** The user's "core path" setting; when set it wins, and a broken one is an error (not skipped). */
  settingPath?: string | null;
  /**
   * The folder holding `core/`: the repository's `resources/` in development,
   * `process.resourcesPath` in the packaged app. Searched in `core/<platform>-<arch>/`,
   * `core/<platform>/`, then `core/`.
   */
  resourcesDir?: string;
  env?: NodeJS.ProcessEnv;
  platform?: NodeJS.Platform;
  arch?: string;
}

/** Preferred first: Xray runs the most, then v2ray, then sing-box (detected, not yet driven). */
export const CORE_BINARY_NAMES = ['xray', 'v2ray', 'sing-box'] as const;

/**
 * Finds the core binary: the setting, then the bundled resources, then PATH. A setting that
 * points nowhere is reported rather than silently replaced by another core, because the user
 * chose it on purpose.
 */
export async function locateCore(opts: LocateOptions = {}): Promise<LocateResult> {
  const platform = opts.platform ?? process.platform;
  const arch = opts.arch ?? process.arch;
  const env = opts.env ?? process.env;

  if (opts.settingPath) {
    if (await isExecutableFile(opts.settingPath, platform)) return { path: opts.settingPath, source: 'setting' };
    return { error: `The core set in Settings (${opts.settingPath}) does not exist or is not an executable file.` };
  }

  const names = CORE_BINARY_NAMES.map((name) => (platform === 'win32' ? `${name}.exe` : name));
  if (opts.resourcesDir) {
    const base = join(opts.resourcesDir, 'core');
    for (const dir of [join(base, `${platform}-${arch}`), join(base, platform), base]) {
      for (const name of names) {
        const candidate = join(dir, name);
        if (await isExecutableFile(candidate, platform)) return { path: candidate, source: 'bundled' };
      }
    }
  }

  const pathVar = (platform === 'win32' ? (env.Path ?? env.PATH) : env.PATH) ?? '';
  const dirs = pathVar.split(platform === 'win32' ? ';' : ':').filter(Boolean);
  for (const name of names) {
    for (const dir of dirs) {
      const candidate = join(dir, name);
      if (await isExecutableFile(candidate, platform)) return { path: candidate, source: 'path' };
    }
  }
  const where = opts.resourcesDir ? `${join(opts.resourcesDir, 'core')} or ` : '';
  return {
    error: `No core found: none of ${CORE_BINARY_NAMES.join(', ')} is in ${where}PATH. Install Xray or v2ray (Debian/Ubuntu: apt install v2ray), or set the core's path in Settings.`,
  };
}

async function isExecutableFile(path: string, platform: NodeJS.Platform): Promise<boolean> {
  try {
    const info = await stat(path);
    if (!info.isFile()) return false;
    if (platform !== 'win32') await access(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}
