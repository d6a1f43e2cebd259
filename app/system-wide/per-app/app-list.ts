/**
 * The app picker's programs, plus which of the user's list entries are there:
 * - Linux: the installed ones (XDG `.desktop` files, with their name and icon) and the running
 *   ones (/proc: each process's executable and name);
 * - Windows and macOS: what the platform's own tools print (policy/platform-apps.ts), without
 *   icons; a tool that fails or hangs gives an empty list, and the path field still names any app.
 */
import { execFile } from 'node:child_process';
import { access, readdir, readFile, readlink } from 'node:fs/promises';
import { homedir } from 'node:os';
import { basename, delimiter, extname, join } from 'node:path';
import { type AppListing, appEntryOf, type PickerApp } from '../../../shared/per-app';
import { parseDesktopEntry } from './policy/desktop-entry';
import { macInstalled, macRunning, WINDOWS_INSTALLED_SCRIPT, WINDOWS_RUNNING_SCRIPT, windowsInstalled, windowsRunning } from './policy/platform-apps';

/** Runs a platform tool and gives its standard output ('' when it fails or takes over `LIST_TIMEOUT_MS`). */
export type ToolRun = (file: string, args: readonly string[]) => Promise<string>;

const LIST_TIMEOUT_MS = 8000;

const runTool: ToolRun = (file, args) =>
  new Promise((resolve) => {
    execFile(file, [...args], { timeout: LIST_TIMEOUT_MS, maxBuffer: 16 * 1024 * 1024, windowsHide: true }, (error, stdout) => resolve(error ? '' : stdout));
  });

const powershell = (run: ToolRun, script: string) => run('powershell.exe', ['-NoProfile', '-NonInteractive', '-Command', script]);

/** The Applications folders' bundles (one level, and Utilities). */
async function macBundles(): Promise<string[]> {
  const folders = ['/Applications', '/Applications/Utilities', '/System/Applications', '/System/Applications/Utilities', join(homedir(), 'Applications')];
  const lists = await Promise.all(folders.map(async (dir) => (await readdir(dir).catch(() => [] as string[])).filter((name) => name.endsWith('.app')).map((name) => join(dir, name))));
  return lists.flat();
}

/** Installed and running programs on Windows and macOS (nothing elsewhere). */
export async function platformApps(platform: NodeJS.Platform, run: ToolRun = runTool): Promise<{ installed: PickerApp[]; running: PickerApp[] }> {
  if (platform === 'win32') {
    const [installed, running] = await Promise.all([powershell(run, WINDOWS_INSTALLED_SCRIPT), powershell(run, WINDOWS_RUNNING_SCRIPT)]);
    return { installed: windowsInstalled(installed), running: windowsRunning(running) };
  }
  if (platform === 'darwin') {
    const [bundles, ps] = await Promise.all([macBundles(), run('ps', ['-axo', 'comm='])]);
    return { installed: macInstalled(bundles), running: macRunning(ps) };
  }
  return { installed: [], running: [] };
}

const ICON_BYTES = 64 * 1024;

function applicationDirs(): string[] {
  const home = process.env.XDG_DATA_HOME ?? join(homedir(), '.local', 'share');
  const dirs = (process.env.XDG_DATA_DIRS ?? '/usr/local/share:/usr/share').split(':').filter(Boolean);
  return [home, ...dirs, '/var/lib/flatpak/exports/share'].map((dir) => join(dir, 'applications'));
}

const exists = (path: string) => access(path).then(() => true, () => false);

async function onPath(program: string): Promise<string | null> {
  if (program.startsWith('/')) return (await exists(program)) ? program : null;
  for (const dir of (process.env.PATH ?? '').split(delimiter).filter(Boolean)) {
    if (await exists(join(dir, program))) return join(dir, program);
  }
  return null;
}

async function iconData(icon: string | null): Promise<string | null> {
  if (!icon) return null;
  const candidates = icon.startsWith('/')
    ? [icon]
    : ['/usr/share/icons/hicolor/48x48/apps', '/usr/share/icons/hicolor/64x64/apps', '/usr/share/icons/hicolor/scalable/apps', '/usr/share/pixmaps'].flatMap((dir) => [join(dir, `${icon}.png`), join(dir, `${icon}.svg`)]);
  for (const file of candidates) {
    const bytes = await readFile(file).catch(() => null);
    if (!bytes || bytes.length > ICON_BYTES) continue;
    const type = extname(file) === '.svg' ? 'image/svg+xml' : 'image/png';
    return `data:${type};base64,${bytes.toString('base64')}`;
  }
  return null;
}

export async function installedApps(language?: string): Promise<PickerApp[]> {
  const byPath = new Map<string, PickerApp>();
  for (const dir of applicationDirs()) {
    const files = await readdir(dir).catch(() => [] as string[]);
    for (const file of files.filter((name) => name.endsWith('.desktop'))) {
      const entry = parseDesktopEntry(await readFile(join(dir, file), 'utf8').catch(() => ''), language);
      const path = entry ? await onPath(entry.program) : null;
      if (!entry || !path || byPath.has(path)) continue;
      byPath.set(path, { name: entry.name, path, icon: await iconData(entry.icon) });
    }
  }
  return [...byPath.values()].sort((a, b) => a.name.localeCompare(b.name));
}

export async function runningApps(): Promise<PickerApp[]> {
  const byPath = new Map<string, PickerApp>();
  for (const pid of (await readdir('/proc').catch(() => [] as string[])).filter((name) => /^\d+$/.test(name))) {
    // Another user's processes cannot be read without root: those are skipped.
    const path = await readlink(`/proc/${pid}/exe`).catch(() => null);
    if (!path || byPath.has(path) || path.endsWith(' (deleted)')) continue;
    const comm = (await readFile(`/proc/${pid}/comm`, 'utf8').catch(() => basename(path))).trim();
    byPath.set(path, { name: comm || basename(path), path, icon: null });
  }
  return [...byPath.values()].sort((a, b) => a.name.localeCompare(b.name));
}

/** A path's last part, whichever system's separators it uses. */
const fileName = (path: string) => path.split(/[\\/]/).pop() ?? path;

const sameName = (a: string, b: string, platform: NodeJS.Platform) => (platform === 'win32' ? a.toLowerCase() === b.toLowerCase() : a === b);

export async function listApps(entries: readonly string[], options: { platform?: NodeJS.Platform; language?: string; run?: ToolRun } = {}): Promise<AppListing> {
  const platform = options.platform ?? process.platform;
  const { installed, running } =
    platform === 'linux' ? { installed: await installedApps(options.language), running: await runningApps() } : await platformApps(platform, options.run);
  const present: Record<string, boolean> = {};
  for (const text of entries) {
    const entry = appEntryOf(text);
    if (!entry) present[text] = false;
    else if (entry.kind === 'uid') present[text] = true;
    else if (entry.kind === 'path') present[text] = await exists(entry.path);
    // Windows compares program names without case, as its file system does.
    else present[text] = [...installed, ...running].some((app) => sameName(fileName(app.path), entry.name, platform)) || (await onPath(entry.name)) !== null;
  }
  return { installed, running, present };
}
