import { constants } from 'node:fs';
import { access, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';

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

/** Every core this app knows, in the order it prefers them as the main core. */
export const CORE_BINARY_NAMES = ['xray', 'v2ray', 'sing-box'] as const;
export type CoreBinaryName = (typeof CORE_BINARY_NAMES)[number];
/**
 * The cores that can be the main one (they read the v2ray-family config the tunnel and prober are
 * written in): Xray first, as on users' machines, then v2ray. sing-box carries the servers those
 * cannot and fronts system-wide TUN, beside a main core, never instead of one.
 */
export const MAIN_CORE_NAMES = ['xray', 'v2ray'] as const satisfies readonly CoreBinaryName[];

export interface FoundCore {
  name: CoreBinaryName;
  path: string;
  source: CoreSource;
}

/**
 * Finds the main core binary: the setting, then the bundled resources, then PATH. The setting is a
 * path, or a core's name ("v2ray", "xray") to choose that core wherever it is found. A setting that
 * points nowhere is reported rather than silently replaced by another core, because the user chose
 * it on purpose.
 */
export async function locateCore(opts: LocateOptions = {}): Promise<LocateResult> {
  const setting = opts.settingPath?.trim();
  if (setting && !isCoreName(setting)) {
    // Absolute: the core is run from a scratch folder, where a relative path means nothing.
    const path = resolve(setting);
    if (await isExecutableFile(path, opts.platform ?? process.platform)) return { path, source: 'setting' };
    return { error: `The core set in Settings (${setting}) does not exist or is not an executable file.` };
  }
  if (setting && isCoreName(setting) && !(MAIN_CORE_NAMES as readonly string[]).includes(setting)) {
    return { error: `The core set in Settings (${setting}) cannot be the main core: it carries servers beside Xray or v2ray. Choose xray or v2ray.` };
  }
  const found = await locateCores(opts);
  const wanted: readonly CoreBinaryName[] = setting && isCoreName(setting) ? [setting] : MAIN_CORE_NAMES;
  for (const name of wanted) {
    const core = found.find((c) => c.name === name);
    if (core) return { path: core.path, source: setting ? 'setting' : core.source };
  }
  if (setting && isCoreName(setting)) {
    return { error: `The core set in Settings (${setting}) was found neither bundled with the app nor on PATH.` };
  }
  const where = opts.resourcesDir ? `${join(opts.resourcesDir, 'core')} or ` : '';
  const only = found.length > 0 ? ` (only ${found.map((c) => c.name).join(', ')}, which carries servers beside a main core but cannot be one)` : '';
  return {
    error: `No core found: neither xray nor v2ray is in ${where}PATH${only}. Install Xray or v2ray (Debian/Ubuntu: apt install v2ray), or set the core's path in Settings.`,
  };
}

export function isCoreName(text: string): text is CoreBinaryName {
  return (CORE_BINARY_NAMES as readonly string[]).includes(text);
}

/**
 * Every core on this machine, one per name, in CORE_BINARY_NAMES order: for each, the bundled
 * resources first (`core/<platform>-<arch>/`, `core/<platform>/`, `core/`), then PATH in its order.
 */
export async function locateCores(opts: LocateOptions = {}): Promise<FoundCore[]> {
  const platform = opts.platform ?? process.platform;
  const arch = opts.arch ?? process.arch;
  const env = opts.env ?? process.env;
  const fileName = (name: string) => (platform === 'win32' ? `${name}.exe` : name);
  const bundledDirs = opts.resourcesDir
    ? [join(opts.resourcesDir, 'core', `${platform}-${arch}`), join(opts.resourcesDir, 'core', platform), join(opts.resourcesDir, 'core')]
    : [];
  const pathVar = (platform === 'win32' ? (env.Path ?? env.PATH) : env.PATH) ?? '';
  const pathDirs = pathVar.split(platform === 'win32' ? ';' : ':').filter(Boolean);
  const found: FoundCore[] = [];
  for (const name of CORE_BINARY_NAMES) {
    const place = (await firstExecutable(bundledDirs, fileName(name), platform, 'bundled')) ?? (await firstExecutable(pathDirs, fileName(name), platform, 'path'));
    if (place) found.push({ name, ...place });
  }
  return found;
}

async function firstExecutable(dirs: string[], file: string, platform: NodeJS.Platform, source: CoreSource): Promise<{ path: string; source: CoreSource } | null> {
  for (const dir of dirs) {
    const candidate = join(dir, file);
    if (await isExecutableFile(candidate, platform)) return { path: candidate, source };
  }
  return null;
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
