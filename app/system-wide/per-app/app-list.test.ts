import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { installedApps, listApps, runningApps } from './app-list';

let dir: string;
const saved = { XDG_DATA_HOME: process.env.XDG_DATA_HOME, XDG_DATA_DIRS: process.env.XDG_DATA_DIRS };
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'per-app-list-'));
  await mkdir(join(dir, 'applications'));
  await mkdir(join(dir, 'bin'));
  await writeFile(join(dir, 'bin', 'bankapp'), '#!/bin/sh\n', { mode: 0o755 });
  await writeFile(join(dir, 'applications', 'bank.desktop'), `[Desktop Entry]\nType=Application\nName=Bank\nExec=${join(dir, 'bin', 'bankapp')} %u\nIcon=${join(dir, 'bank.png')}\n`);
  await writeFile(join(dir, 'bank.png'), Buffer.from([0x89, 0x50, 0x4e, 0x47]));
  await writeFile(join(dir, 'applications', 'gone.desktop'), '[Desktop Entry]\nType=Application\nName=Gone\nExec=/nonexistent/gone\n');
  process.env.XDG_DATA_HOME = dir;
  process.env.XDG_DATA_DIRS = join(dir, 'none');
});
afterEach(async () => {
  process.env.XDG_DATA_HOME = saved.XDG_DATA_HOME;
  process.env.XDG_DATA_DIRS = saved.XDG_DATA_DIRS;
  if (saved.XDG_DATA_HOME === undefined) delete process.env.XDG_DATA_HOME;
  if (saved.XDG_DATA_DIRS === undefined) delete process.env.XDG_DATA_DIRS;
  await rm(dir, { recursive: true, force: true });
});

describe('the app picker’s programs (Linux)', () => {
  it('lists installed apps with their name and icon, leaving out those whose program is not there', async () => {
    const apps = (await installedApps()).filter((app) => app.path.startsWith(dir));
    expect(apps).toEqual([{ name: 'Bank', path: join(dir, 'bin', 'bankapp'), icon: 'data:image/png;base64,iVBORw==' }]);
  });

  it('lists running programs by their executable, this test’s own Node among them', async () => {
    const running = await runningApps();
    expect(running.some((app) => app.path === process.execPath)).toBe(true);
  });

  it('says which list entries are on this machine: a rule for an app not installed is kept and shown as such', async () => {
    const listing = await listApps([join(dir, 'bin', 'bankapp'), '/opt/not-installed/app', 'uid:1001', 'sh', 'no-such-program-here']);
    expect(listing.present).toEqual({ [join(dir, 'bin', 'bankapp')]: true, '/opt/not-installed/app': false, 'uid:1001': true, sh: true, 'no-such-program-here': false });
  });
});

describe('the app picker’s programs (Windows and macOS, from their tools’ output)', () => {
  const tools = (outputs: Record<string, string>) => async (file: string, args: readonly string[]) => outputs[`${file} ${args.at(-1)?.slice(0, 12)}`] ?? '';

  it('Windows: the installed programs from the uninstall keys and the running ones from Get-Process; a name entry is found among them', async () => {
    const run = tools({
      'powershell.exe $keys = \'HKL': JSON.stringify([{ DisplayName: 'Telegram Desktop', DisplayIcon: 'C:\\Tg\\Telegram.exe,0' }]),
      'powershell.exe Get-Process ': JSON.stringify({ ProcessName: 'Discord', Path: 'C:\\Discord\\Discord.exe' }),
    });
    const listing = await listApps(['Discord.exe', 'C:\\Gone\\gone.exe'], { platform: 'win32', run });
    expect(listing.installed).toEqual([{ name: 'Telegram Desktop', path: 'C:\\Tg\\Telegram.exe', icon: null }]);
    expect(listing.running).toEqual([{ name: 'Discord', path: 'C:\\Discord\\Discord.exe', icon: null }]);
    expect(listing.present).toEqual({ 'Discord.exe': true, 'C:\\Gone\\gone.exe': false });
  });

  it('a tool that fails gives an empty list, not an error', async () => {
    const listing = await listApps(['app.exe'], { platform: 'win32', run: async () => '' });
    expect(listing).toMatchObject({ installed: [], running: [] });
    expect(listing.present['app.exe']).toBe(false);
  });

  it('macOS: running programs from ps, shown by their bundle', async () => {
    const run = tools({ 'ps comm=': '/Applications/Signal.app/Contents/MacOS/Signal\n/usr/sbin/cfprefsd\n' });
    const listing = await listApps([], { platform: 'darwin', run });
    expect(listing.running).toEqual([
      { name: 'cfprefsd', path: '/usr/sbin/cfprefsd', icon: null },
      { name: 'Signal', path: '/Applications/Signal.app', icon: null },
    ]);
  });
});
