#!/usr/bin/env node
// Builds Xray and sing-box from their Go modules at the versions pinned in resources/core/pins.json
// (`module`, `moduleVersion`, `package`, `tags`, `ldflags`), so the cores the tests run are the
// cores the installers ship. `go build` of a module's main package at a pinned version builds the
// same source its release archives were built from; the archives themselves may be out of reach.
//
// Built binaries are kept in a cache outside the repository, one folder per (name, version,
// module version, tags, ldflags, Go version), so a second setup — or CI on the same machine —
// copies instead of building. They are then put where the app looks for bundled cores
// (resources/core/<platform>-<arch>/), as `npm run fetch-cores` does with release archives.
//
// Node built-ins only: it runs from scripts/setup.mjs before anything else is installed.
// Usage: node scripts/build-cores.mjs [--force]   (STEADFAST_CORE_CACHE overrides the cache folder)
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, copyFileSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

export function coreCacheRoot(env = process.env) {
  if (env.STEADFAST_CORE_CACHE) return env.STEADFAST_CORE_CACHE;
  return join(env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'steadfast-vpn', 'cores');
}

function go(args, options = {}) {
  const result = spawnSync('go', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 64 * 1024 * 1024, ...options });
  if (result.error) throw new Error(`go ${args[0]}: ${result.error.message}`);
  if (result.status !== 0) {
    const out = `${result.stdout ?? ''}${result.stderr ?? ''}`
      .split('\n')
      .filter((line) => line && !line.startsWith('go: downloading'))
      .slice(-12)
      .join('\n');
    throw new Error(`go ${args.join(' ')} failed (exit ${result.status}):\n${out}`);
  }
  return result.stdout;
}

export function goAvailable() {
  const result = spawnSync('go', ['version'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  return result.status === 0 ? result.stdout.trim() : null;
}

/** The cache folder of one core build: everything that changes the binary is in its name. */
export function cacheKey(core, goVersion) {
  const recipe = JSON.stringify([core.module, core.moduleVersion, core.package, core.tags, core.ldflags, goVersion]);
  return `${core.name}-${core.version}-${createHash('sha256').update(recipe).digest('hex').slice(0, 12)}`;
}

function versionLine(binary, name) {
  const result = spawnSync(binary, ['version'], { encoding: 'utf8', timeout: 10_000 });
  const first = `${result.stdout ?? ''}`.split('\n').find((l) => l.trim()) ?? '';
  return first.trim() || `${name}: printed no version (exit ${result.status})`;
}

function buildOne(core, goVersion, cacheDir) {
  const binaryName = process.platform === 'win32' ? `${core.binary}.exe` : core.binary;
  const cached = join(cacheDir, cacheKey(core, goVersion), binaryName);
  if (existsSync(cached)) return { binary: cached, built: false, seconds: 0 };
  const started = performance.now();
  // The module's own folder (read-only in the module cache) is the main module of the build: its
  // go.mod and go.sum pin every dependency exactly as its releases have them.
  const info = JSON.parse(go(['mod', 'download', '-json', `${core.module}@${core.moduleVersion}`]));
  if (!info.Dir) throw new Error(`${core.module}@${core.moduleVersion}: the module proxy did not serve it${info.Error ? ` (${info.Error})` : ''}`);
  const scratch = `${dirname(cached)}.partial-${process.pid}`;
  rmSync(scratch, { recursive: true, force: true });
  mkdirSync(scratch, { recursive: true });
  const args = ['build', '-trimpath', '-buildvcs=false', '-o', join(scratch, binaryName)];
  if (core.tags.length > 0) args.push('-tags', core.tags.join(','));
  args.push(`-ldflags=${core.ldflags}`, core.package);
  try {
    go(args, { cwd: info.Dir, env: { ...process.env, CGO_ENABLED: '0', GOFLAGS: '-mod=readonly' } });
    mkdirSync(dirname(dirname(cached)), { recursive: true });
    rmSync(dirname(cached), { recursive: true, force: true });
    renameSync(scratch, dirname(cached));
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
  return { binary: cached, built: true, seconds: (performance.now() - started) / 1000 };
}

/** Copies `from` to `to` unless the same file is already there. */
function install(from, to) {
  if (existsSync(to)) {
    const a = statSync(from);
    const b = statSync(to);
    if (a.size === b.size && readFileSync(from).equals(readFileSync(to))) return false;
  }
  mkdirSync(dirname(to), { recursive: true });
  const partial = `${to}.partial-${process.pid}`;
  copyFileSync(from, partial);
  chmodSync(partial, 0o755);
  renameSync(partial, to);
  return true;
}

/**
 * Builds (or takes from the cache) every core in pins.json that names its module, installs it in
 * resources/core/<platform>-<arch>/ and returns one line per core for setup to print.
 */
export function buildCores({ force = false, log = (line) => process.stdout.write(`build-cores: ${line}\n`) } = {}) {
  const goVersion = goAvailable();
  if (!goVersion) return { available: false, lines: [] };
  const pins = JSON.parse(readFileSync(join(root, 'resources', 'core', 'pins.json'), 'utf8'));
  const cacheDir = coreCacheRoot();
  const target = join(root, 'resources', 'core', `${process.platform}-${process.arch}`);
  const lines = [];
  for (const core of pins.cores) {
    if (!core.module) continue;
    if (force) rmSync(join(cacheDir, cacheKey(core, goVersion)), { recursive: true, force: true });
    const key = cacheKey(core, goVersion);
    if (!existsSync(join(cacheDir, key))) log(`building ${core.name} ${core.version} from ${core.module}@${core.moduleVersion} (${goVersion.replace(/^go version /, '')})…`);
    const { binary, built, seconds } = buildOne(core, goVersion, cacheDir);
    const installed = install(binary, join(target, process.platform === 'win32' ? `${core.binary}.exe` : core.binary));
    const version = versionLine(binary, core.name);
    if (!version.includes(core.version)) {
      throw new Error(`${core.name} built from ${core.module}@${core.moduleVersion} says "${version}", not ${core.version}: the pin's version and moduleVersion disagree`);
    }
    const how = built ? `built in ${seconds.toFixed(1)} s` : installed ? 'from the build cache' : 'up to date';
    const omitted = Object.keys(core.omittedTags ?? {});
    lines.push(`${version} (${how}${omitted.length ? `; without ${omitted.join(', ')}` : ''})`);
  }
  return { available: true, lines, cacheDir };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  try {
    const result = buildCores({ force: process.argv.includes('--force') });
    if (!result.available) {
      process.stdout.write('build-cores: go is not installed; on a machine with internet, `npm run fetch-cores` downloads the pinned release archives instead.\n');
    } else {
      for (const line of result.lines) process.stdout.write(`build-cores: ${line}\n`);
      process.stdout.write(`build-cores: cache ${result.cacheDir}\n`);
    }
  } catch (error) {
    process.stderr.write(`build-cores: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  }
}
