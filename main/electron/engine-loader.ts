import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { createEngine } from '../../app/engine';

/** The engine's composition root, as the bundle exports it (a type-only import: the code stays out of the shell's bundle). */
export type CreateEngine = typeof createEngine;

/**
 * The engine (app/engine, `createEngine`) is bundled on its own, next to the shell's bundle, and
 * loaded when the app is ready. The shell therefore builds and is tested without it (it knows only its type),
 * and a build without an engine fails loudly in `npm run build` (see build/bundle.ts) rather than
 * producing an app that cannot work. It is loaded with `require` (a CommonJS bundle), which
 * Electron resolves inside app.asar in packaged builds.
 */
export const ENGINE_BUNDLE = 'engine.cjs';

export async function loadEngineBundle(dir: string): Promise<CreateEngine> {
  const file = join(dir, ENGINE_BUNDLE);
  if (!existsSync(file)) throw new Error(`${file} is missing: run "npm run build" (it bundles the engine from app/engine/)`);
  const loaded = createRequire(file)(file) as { createEngine?: unknown; default?: { createEngine?: unknown } };
  const createEngine = loaded.createEngine ?? loaded.default?.createEngine;
  if (typeof createEngine !== 'function') throw new Error(`${file} does not export createEngine(options)`);
  return createEngine as CreateEngine;
}
