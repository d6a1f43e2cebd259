#!/usr/bin/env node
// `npm run setup`: everything the demo and the tests need, on a fresh Debian/Ubuntu machine with
// only Node 20 and npm. Node built-ins only, so it runs before `npm ci`. Idempotent: when all is
// already there it prints one line.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { delimiter, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildCores } from './build-cores.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const quiet = [];
const done = [];

/**
 * Debian packages: the core, the browser for the UI tests, ping for ICMP probes, gsettings and KDE's
 * kconfig tools for the system-proxy tests, nftables / iproute2 / curl for system-wide mode and its namespace test.
 */
const APT_PACKAGES = [
  { pkg: 'v2ray', provides: ['v2ray'], why: 'the tunnelling core (v2ray 4.x)' },
  { pkg: 'chromium', provides: ['chromium'], why: 'the browser the UI tests drive' },
  { pkg: 'iputils-ping', provides: ['ping'], why: 'ICMP probes' },
  { pkg: 'libglib2.0-bin', provides: ['gsettings'], why: "GNOME's proxy settings (system-proxy test)" },
  { pkg: 'gsettings-desktop-schemas', provides: [], why: 'the org.gnome.system.proxy schema' },
  { pkg: 'dbus', provides: ['dbus-run-session'], why: 'a session bus for gsettings' },
  { pkg: 'dconf-gsettings-backend', provides: [], why: 'a persistent gsettings backend' },
  { pkg: 'libkf5config-bin', provides: ['kwriteconfig5', 'kreadconfig5'], why: "KDE's proxy settings (system-proxy test)" },
  { pkg: 'nftables', provides: ['nft'], why: 'system-wide mode: the capture rules (and its namespace test)' },
  { pkg: 'iptables', provides: ['iptables'], why: 'system-wide mode: firewall tools beside nftables' },
  { pkg: 'iproute2', provides: ['ip'], why: 'system-wide mode: policy routing and the test namespaces' },
  { pkg: 'curl', provides: ['curl'], why: 'a plain program with no proxy in the system-wide test' },
  { pkg: 'tshark', provides: ['tshark'], why: "captures on the lab's own ports (the anti-DPI wire tests)" },
];

function onPath(binary) {
  // sbin folders too: nft and ip live there, and a user's PATH often leaves them out.
  return [...(process.env.PATH ?? '').split(delimiter), '/usr/sbin', '/sbin']
    .some((dir) => dir && existsSync(join(dir, process.platform === 'win32' ? `${binary}.exe` : binary)));
}

function isDebianLike() {
  try {
    const release = readFileSync('/etc/os-release', 'utf8');
    return /^(ID|ID_LIKE)=.*\b(debian|ubuntu)\b/m.test(release);
  } catch {
    return false;
  }
}

function run(cmd, args, options = {}) {
  const result = spawnSync(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8', ...options });
  if (result.status !== 0) {
    const out = `${result.stdout ?? ''}${result.stderr ?? ''}`.trim().split('\n').slice(-15).join('\n');
    throw new Error(`${cmd} ${args.join(' ')} failed (exit ${result.status ?? result.signal}):\n${out}`);
  }
  return result.stdout;
}

// 1. npm dependencies: `npm ci` when node_modules is missing or older than the lock file.
function npmDependencies() {
  const lock = join(root, 'package-lock.json');
  const installed = join(root, 'node_modules', '.package-lock.json');
  if (existsSync(installed) && statSync(installed).mtimeMs >= statSync(lock).mtimeMs) {
    quiet.push('npm packages');
    return;
  }
  process.stdout.write('setup: installing npm packages (npm ci)…\n');
  run(process.platform === 'win32' ? 'npm.cmd' : 'npm', ['ci', '--no-audit', '--no-fund'], { cwd: root });
  done.push('npm packages installed');
}

function bundledCore() {
  const dir = join(root, 'resources', 'core', `${process.platform}-${process.arch}`);
  return ['xray', 'v2ray', 'sing-box'].map((n) => join(dir, process.platform === 'win32' ? `${n}.exe` : n)).find(existsSync);
}

function dpkgInstalled(pkg) {
  const result = spawnSync('dpkg-query', ['-W', '-f=${Status}', pkg], { encoding: 'utf8' });
  return result.status === 0 && result.stdout.includes('install ok installed');
}

/** A package counts as present when its commands are on PATH (or, with no commands, dpkg has it). */
function packageMissing({ pkg, provides }) {
  if (provides.length > 0) return provides.some((b) => !onPath(b));
  return isDebianLike() ? !dpkgInstalled(pkg) : false;
}

// 2. System packages: on Debian/Ubuntu as root, apt-get installs what is missing; elsewhere we
//    say exactly what to install.
function systemPackages() {
  // v2ray 4.34 stays installed beside the built cores: a supported core, and the control in every
  // comparison. Only a machine with no core at all cannot go on.
  const haveCore = onPath('v2ray') || onPath('xray') || bundledCore() !== undefined;
  const missing = APT_PACKAGES.filter(packageMissing);
  if (missing.length === 0) {
    quiet.push('core and system packages');
    return;
  }
  const isRoot = process.getuid?.() === 0;
  if (process.platform === 'linux' && isDebianLike() && isRoot) {
    const names = missing.map((p) => p.pkg);
    process.stdout.write(`setup: installing ${names.join(', ')} with apt-get…\n`);
    const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
    try {
      run('apt-get', ['install', '-y', '-qq', '--no-install-recommends', ...names], { env });
    } catch {
      run('apt-get', ['update', '-qq'], { env });
      run('apt-get', ['install', '-y', '-qq', '--no-install-recommends', ...names], { env });
    }
    done.push(`installed ${names.join(', ')}`);
    return;
  }
  const lines = missing.map((p) => `  - ${p.pkg}: ${p.why}`);
  const coreMissing = !haveCore;
  const how =
    process.platform === 'linux' && isDebianLike()
      ? `Run as root: apt-get install -y ${missing.map((p) => p.pkg).join(' ')}`
      : process.platform === 'darwin'
        ? 'Install the core with Homebrew (`brew install xray` or `brew install v2ray`), or put the xray/v2ray binary in resources/core/darwin-<arch>/.'
        : process.platform === 'win32'
          ? 'Download Xray-core for Windows (github.com/XTLS/Xray-core releases) and put xray.exe in resources\\core\\win32-x64\\, or put it on PATH.'
          : 'Install v2ray (4.x or 5.x) or Xray with your package manager, or put the binary in resources/core/<platform>-<arch>/.';
  process.stdout.write(`setup: missing:\n${lines.join('\n')}\n${how}\n`);
  if (coreMissing) {
    process.stdout.write('setup: no tunnelling core found; the app cannot connect without one.\n');
    process.exitCode = 1;
  }
}

// 3. Xray and sing-box, built from their Go modules at the pinned versions (cached outside the
//    repository). Where Go is missing, `npm run fetch-cores` fetches the pinned release archives.
let coreLines = [];
function realCores() {
  const result = buildCores({ log: (line) => process.stdout.write(`setup: ${line}\n`) });
  if (!result.available) {
    if (bundledCore() === undefined) {
      process.stdout.write('setup: go is not installed, so Xray and sing-box were not built; with internet, `npm run fetch-cores` downloads the pinned releases (v2ray alone carries only the older protocols).\n');
    }
    return;
  }
  coreLines = result.lines;
  if (result.lines.every((line) => line.includes('up to date'))) quiet.push('Xray and sing-box');
  else done.push('cores built or taken from the cache');
}

function coreVersion() {
  const lines = [...coreLines];
  if (onPath('v2ray')) {
    try {
      lines.push(execFileSync('v2ray', ['-version'], { encoding: 'utf8', timeout: 5000 }).split('\n')[0].trim());
    } catch {
      // Reported by the tests that need it.
    }
  }
  return lines.length > 0 ? lines.join('; ') : (bundledCore() ?? 'none');
}

// 4. The region presets' IP ranges, generated from the @ip-location-db package (quiet when current).
function regionData() {
  const out = run(process.execPath, ['--import', 'tsx', join(root, 'scripts', 'region-data.ts')], { cwd: root });
  if (out.includes('up to date')) quiet.push('region data');
  else done.push('region data generated');
}

try {
  npmDependencies();
  systemPackages();
  realCores();
  regionData();
  if (done.length > 0) process.stdout.write(`setup: ${done.join('; ')}; cores: ${coreVersion()}\n`);
  else if (process.exitCode !== 1) process.stdout.write(`setup: ready (${quiet.join(', ')} present; cores: ${coreVersion()})\n`);
} catch (error) {
  process.stderr.write(`setup: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
}
