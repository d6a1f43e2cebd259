#!/usr/bin/env node
// `npm run sim -- FILE.json`: runs main/cli/sim.ts from a bundle built with esbuild, rebuilt only
// when one of its sources changed, so a scenario answers in a fraction of a second instead of
// paying TypeScript's on-the-fly compile at every start.
import { existsSync, readFileSync, statSync, writeFileSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const out = join(root, '.cache', 'sim.mjs');
const meta = join(root, '.cache', 'sim.inputs.json');

function fresh() {
  if (!existsSync(out) || !existsSync(meta)) return false;
  const built = statSync(out).mtimeMs;
  const inputs = JSON.parse(readFileSync(meta, 'utf8'));
  return inputs.every((file) => existsSync(join(root, file)) && statSync(join(root, file)).mtimeMs <= built);
}

if (!fresh()) {
  mkdirSync(dirname(out), { recursive: true });
  // Loaded only when a rebuild is due: importing esbuild costs more than running a scenario.
  const { build } = await import('esbuild');
  const result = await build({
    entryPoints: [join(root, 'main', 'cli', 'sim.ts')],
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    packages: 'external',
    outfile: out,
    metafile: true,
    logLevel: 'warning',
    absWorkingDir: root,
  });
  writeFileSync(meta, JSON.stringify(Object.keys(result.metafile.inputs)));
}
await import(pathToFileURL(out).href);
