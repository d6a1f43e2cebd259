import { spawn } from 'node:child_process';
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository's built renderer (what `npm run build:renderer` writes). */
export const RENDERER_DIST = fileURLToPath(new URL('../../dist/renderer', import.meta.url));
const RENDERER_SOURCE = fileURLToPath(new URL('../../renderer', import.meta.url));
const SHARED_SOURCE = fileURLToPath(new URL('../../shared', import.meta.url));

/**
 * Builds the renderer when there is no build, or when a source file is newer than it, so
 * `npm run demo` and `npm run headless` always serve the UI of the checkout they run from.
 * Resolves to whether a build ran.
 */
export async function ensureRendererBuilt(log: (line: string) => void = () => undefined): Promise<boolean> {
  const built = await stat(join(RENDERER_DIST, 'index.html')).catch(() => null);
  if (built) {
    const newest = Math.max(await newestMtime(RENDERER_SOURCE), await newestMtime(SHARED_SOURCE));
    if (newest <= built.mtimeMs) return false;
  }
  log(built ? 'the UI changed since its last build: building it (vite)…' : 'building the UI (vite)…');
  await new Promise<void>((resolve, reject) => {
    const vite = fileURLToPath(new URL('../../node_modules/vite/bin/vite.js', import.meta.url));
    // Always a production build: run from a test runner (NODE_ENV=test) vite would otherwise bundle
    // React's development build (~4× the size, several times slower with thousands of rows).
    const child = spawn(process.execPath, [vite, 'build', '--config', join(RENDERER_SOURCE, 'vite.config.ts'), '--logLevel', 'warn'], {
      stdio: ['ignore', 'ignore', 'pipe'],
      env: { ...process.env, NODE_ENV: 'production' },
    });
    let errors = '';
    child.stderr.on('data', (d) => (errors += String(d)));
    child.once('error', reject);
    child.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`building the UI failed (exit ${code}): ${errors.trim().slice(-2000)}`))));
  });
  return true;
}

async function newestMtime(dir: string): Promise<number> {
  let newest = 0;
  for (const entry of await readdir(dir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile() || entry.name.endsWith('.test.ts') || entry.name.endsWith('.test.tsx')) continue;
    if (entry.parentPath.includes('node_modules') || entry.parentPath.includes(`${join('src', 'testing')}`)) continue;
    const info = await stat(join(entry.parentPath, entry.name));
    newest = Math.max(newest, info.mtimeMs);
  }
  return newest;
}
