// `npm run build:electron`: bundles the main process, the engine and the preload, copies the icons.
// (`npm run build` runs the renderer build first, then this.)
import { join } from 'node:path';
import { bundleEngine, bundleMain, bundlePreload, copyRuntimeAssets, rendererProblem } from './bundle';

const root = join(import.meta.dirname, '..', '..', '..');
const outDir = join(root, 'dist');
const sourcemap = process.env.NODE_ENV !== 'production';

const started = Date.now();
try {
  const results = await Promise.all([
    bundleMain({ root, outDir, sourcemap }),
    bundlePreload({ root, outDir, sourcemap }),
    bundleEngine({ root, outDir, sourcemap }),
  ]);
  for (const warning of results.flatMap((r) => r.warnings)) process.stderr.write(`warning: ${warning.text}\n`);
  await copyRuntimeAssets({ root, outDir });
} catch (error) {
  const errors = (error as { errors?: { text: string; location?: { file: string; line: number } | null }[] }).errors;
  for (const e of errors ?? []) process.stderr.write(`error: ${e.location ? `${e.location.file}:${e.location.line}: ` : ''}${e.text}\n`);
  if (!errors) process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
}
const problem = await rendererProblem(outDir);
if (problem) process.stderr.write(`warning: ${problem}\n`);
process.stdout.write(`electron: dist/main/electron.cjs, engine.cjs, preload.cjs, dist/assets/ (${Date.now() - started} ms)\n`);
