import { existsSync } from 'node:fs';
import { copyFile, cp, mkdir, readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { build, type BuildOptions, type BuildResult } from 'esbuild';
import { TRAY_FLAGS_DIR } from '../tray-flags';

/**
 * Builds the Electron side into dist/: the main process (dist/main/electron.cjs, package.json
 * "main"), the engine (dist/main/engine.cjs), the preload (dist/main/preload.cjs) and the
 * tray/window icons (dist/assets/). The
 * renderer is built by `npm run build:renderer` into dist/renderer/.
 */
export interface BundleOptions {
  /** The repository root. */
  root: string;
  /** Usually <root>/dist. */
  outDir: string;
  /** Source maps next to the bundles (development). */
  sourcemap?: boolean;
}

/** Electron's main process runs Node 22+; the bundle keeps npm packages external (they ship in node_modules). */
const MAIN_TARGET = 'node22';
/** The preload runs in Chromium's sandbox. */
const PRELOAD_TARGET = 'chrome130';

// Engine code written as ESM may use import.meta.url / import.meta.dirname; in a CommonJS bundle
// they come from the bundle's own file.
const IMPORT_META_SHIM = "const __importMetaUrl = require('node:url').pathToFileURL(__filename).href;";

export async function bundleMain({ root, outDir, sourcemap = false }: BundleOptions): Promise<BuildResult> {
  return build({
    ...mainOptions(root, sourcemap),
    entryPoints: [join(root, 'main', 'electron', 'main.ts')],
    outfile: join(outDir, 'main', 'electron.cjs'),
  });
}

function mainOptions(root: string, sourcemap: boolean): BuildOptions {
  return {
    absWorkingDir: root,
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: MAIN_TARGET,
    external: ['electron'],
    packages: 'external',
    define: { 'import.meta.url': '__importMetaUrl', 'import.meta.dirname': '__dirname', 'import.meta.filename': '__filename' },
    banner: { js: IMPORT_META_SHIM },
    sourcemap,
    metafile: true,
    logLevel: 'silent',
  };
}

/**
 * The engine's composition root (app/engine, exporting `createEngine`) as its own bundle, loaded
 * by the shell with a dynamic import (see engine-loader.ts). Without it there is no app to build.
 */
export async function bundleEngine({ root, outDir, sourcemap = false }: BundleOptions): Promise<BuildResult> {
  const entry = join(root, 'app', 'engine');
  if (!existsSync(join(entry, 'index.ts'))) {
    throw new Error(`${join(entry, 'index.ts')} is missing: the engine's composition root (createEngine) is needed to build the desktop app`);
  }
  return build({ ...mainOptions(root, sourcemap), entryPoints: [join(entry, 'index.ts')], outfile: join(outDir, 'main', 'engine.cjs') });
}

/** System-wide mode's privileged helper, a file of its own: pkexec runs it on Electron's Node. */
export async function bundleCaptureHelper({ root, outDir, sourcemap = false }: BundleOptions): Promise<BuildResult> {
  return build({ ...mainOptions(root, sourcemap), entryPoints: [join(root, 'main', 'helper', 'capture-helper.ts')], outfile: join(outDir, 'main', 'capture-helper.cjs') });
}

/**
 * The sandboxed preload may `require('electron')` and nothing else, so everything it uses (the
 * contract and zod) is bundled into the one file.
 */
export async function bundlePreload({ root, outDir, sourcemap = false }: BundleOptions): Promise<BuildResult> {
  return build({
    absWorkingDir: root,
    entryPoints: [join(root, 'main', 'electron', 'preload.ts')],
    outfile: join(outDir, 'main', 'preload.cjs'),
    bundle: true,
    platform: 'browser',
    format: 'cjs',
    target: PRELOAD_TARGET,
    external: ['electron'],
    sourcemap,
    // zod comes along with the contract; minified, the preload stays small to parse on every load.
    minify: true,
    metafile: true,
    logLevel: 'silent',
  });
}

/** The icons the window and tray load at run time. */
export const RUNTIME_ICONS = ['icon.png', 'tray-connected.png', 'tray-disconnected.png', 'trayTemplate.png', 'trayTemplate@2x.png'] as const;

/** The icons, and the tray menu's flags (assets/flags/, drawn by scripts/tray-flags.ts). */
export async function copyRuntimeAssets({ root, outDir }: BundleOptions): Promise<string[]> {
  const target = join(outDir, 'assets');
  await mkdir(target, { recursive: true });
  for (const name of RUNTIME_ICONS) await copyFile(join(root, 'assets', name), join(target, name));
  await cp(join(root, TRAY_FLAGS_DIR), join(target, 'flags'), { recursive: true });
  return RUNTIME_ICONS.map((name) => join(target, name));
}

/** A sentence when the renderer has not been built (the window would have nothing to show). */
export async function rendererProblem(outDir: string): Promise<string | null> {
  try {
    await stat(join(outDir, 'renderer', 'index.html'));
    return null;
  } catch {
    return `${join(outDir, 'renderer', 'index.html')} is missing: run "npm run build:renderer" (npm run build does both)`;
  }
}

/** Every `require("…")` left in a bundle: what it needs at run time. */
export function requiredModules(code: string): string[] {
  return [...new Set([...code.matchAll(/\brequire\(\s*["']([^"']+)["']\s*\)/g)].map((m) => m[1]!))].sort();
}

export async function listFiles(dir: string): Promise<string[]> {
  return (await readdir(dir)).sort();
}
