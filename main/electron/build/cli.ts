// `npm run build:electron`: bundles the main process, the engine and the preload, copies the icons.
// (`npm run build` runs the renderer build first, then this.)
import { join } from 'node:path';
import { bundleCaptureHelper, bundleEngine, bundleMain, bundlePreload, copyRuntimeAssets, rendererProblem } from './bundle';

const root = join(import.meta.dirname, '..', '..', '..');
const outDir = join(root, 'dist');
const sourcemap = process.env.NODE_ENV !== 'production';

const started = Date.now();
const results = await Promise.allSettled([
  bundleMain({ root, outDir, sourcemap }),
  bundlePreload({ root, outDir, sourcemap }),
  bundleEngine({ root, outDir, sourcemap }),
  bundleCaptureHelper({ root, outDir, sourcemap }),
  copyRuntimeAssets({ root, outDir }),
]);
let failed = false;
for (const result of results) {
  if (result.status === 'fulfilled') {
    const warnings = 'warnings' in result.value ? result.value.warnings : [];
    for (const warning of warnings) process.stderr.write(`warning: ${warning.text}\n`);
    continue;
  }
  failed = true;
  const error = result.reason as { errors?: { text: string; location?: { file: string; line: number } | null }[] } & Error;
  if (error.errors) {
    for (const e of error.errors) process.stderr.write(`error: ${e.location ? `${e.location.file}:${e.location.line}: ` : ''}${e.text}\n`);
  } else {
    process.stderr.write(`error: ${error instanceof Error ? error.message : String(error)}\n`);
  }
}
if (failed) process.exit(1);
const problem = await rendererProblem(outDir);
if (problem) process.stderr.write(`warning: ${problem}\n`);
process.stdout.write(`electron: dist/main/electron.cjs, engine.cjs, capture-helper.cjs, preload.cjs, dist/assets/ (${Date.now() - started} ms)\n`);
