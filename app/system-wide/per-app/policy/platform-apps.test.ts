import { describe, expect, it } from 'vitest';
import { macBundleOf, macInstalled, macRunning, windowsIconProgram, windowsInstalled, windowsRunning } from './platform-apps';

describe('the app picker on Windows', () => {
  it('lists running programs from Get-Process, one row as a bare object or many as an array', () => {
    expect(windowsRunning('{"ProcessName":"Discord","Path":"C:\\\\Users\\\\a\\\\AppData\\\\Local\\\\Discord\\\\app-1.0\\\\Discord.exe"}')).toEqual([
      { name: 'Discord', path: 'C:\\Users\\a\\AppData\\Local\\Discord\\app-1.0\\Discord.exe', icon: null },
    ]);
    const many = JSON.stringify([
      { ProcessName: 'chrome', Path: 'C:\\Program Files\\Google\\Chrome\\Application\\chrome.exe' },
      { ProcessName: 'chrome', Path: 'C:\\Program Files\\Google\\Chrome\\Application\\chrome.exe' },
      { ProcessName: 'bank', Path: 'D:\\Apps\\Bank\\bank.exe' },
      { ProcessName: 'System', Path: null },
    ]);
    expect(windowsRunning(many).map((a) => a.name)).toEqual(['bank', 'chrome']);
    expect(windowsRunning('')).toEqual([]);
    expect(windowsRunning('not json')).toEqual([]);
  });

  it.each([
    ['"C:\\Program Files\\App\\app.exe",0', 'C:\\Program Files\\App\\app.exe'],
    ['C:\\Program Files\\App\\app.exe', 'C:\\Program Files\\App\\app.exe'],
    ['C:\\Program Files\\App\\App.EXE,-101', 'C:\\Program Files\\App\\App.EXE'],
    ['C:\\Program Files\\App\\app.ico', null],
    ['%SystemRoot%\\system32\\app.exe', null],
  ])('reads the program from DisplayIcon %s', (icon, program) => {
    expect(windowsIconProgram(icon)).toBe(program);
  });

  it('lists installed programs by their uninstall entry, leaving out those whose icon names no program', () => {
    const rows = JSON.stringify([
      { DisplayName: 'Telegram Desktop', DisplayIcon: 'C:\\Users\\a\\AppData\\Roaming\\Telegram Desktop\\Telegram.exe,0' },
      { DisplayName: 'A Runtime', DisplayIcon: 'C:\\Windows\\Installer\\{GUID}\\icon.ico' },
    ]);
    expect(windowsInstalled(rows)).toEqual([{ name: 'Telegram Desktop', path: 'C:\\Users\\a\\AppData\\Roaming\\Telegram Desktop\\Telegram.exe', icon: null }]);
  });
});

describe('the app picker on macOS', () => {
  it('names a program by its bundle, as a list entry holds it', () => {
    expect(macBundleOf('/Applications/Discord.app/Contents/MacOS/Discord')).toBe('/Applications/Discord.app');
    expect(macBundleOf('/usr/bin/curl')).toBeNull();
  });

  it('lists the Applications folders’ bundles and the running programs, bundles once', () => {
    expect(macInstalled(['/Applications/Safari.app', '/Applications/Safari.app', 'relative.app', '/Applications/notes.txt'])).toEqual([{ name: 'Safari', path: '/Applications/Safari.app', icon: null }]);
    const ps = ['/Applications/Discord.app/Contents/MacOS/Discord', '/Applications/Discord.app/Contents/Frameworks/Discord Helper.app/Contents/MacOS/Discord Helper', '/usr/libexec/trustd', '(kernel_task)', ''].join('\n');
    expect(macRunning(ps)).toEqual([
      { name: 'Discord', path: '/Applications/Discord.app', icon: null },
      { name: 'trustd', path: '/usr/libexec/trustd', icon: null },
    ]);
  });
});
