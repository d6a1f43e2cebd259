import { describe, expect, it } from 'vitest';
import { parseDesktopEntry, programOfExec } from './desktop-entry';

describe('programOfExec', () => {
  it.each([
    ['/usr/bin/firefox %u', '/usr/bin/firefox'],
    ['firefox-esr %u', 'firefox-esr'],
    ['"/opt/My App/app" --flag %F', '/opt/My App/app'],
    ['env GDK_BACKEND=x11 LANG=C /usr/bin/app %U', '/usr/bin/app'],
    ['/usr/bin/flatpak run --branch=stable com.discordapp.Discord', '/usr/bin/flatpak'],
    ['%u', null],
    ['', null],
  ])('%j → %j', (exec, program) => {
    expect(programOfExec(exec)).toBe(program);
  });
});

describe('parseDesktopEntry', () => {
  const firefox = ['[Desktop Entry]', 'Type=Application', 'Name=Firefox', 'Name[fa]=فایرفاکس', 'Exec=/usr/bin/firefox %u', 'Icon=firefox', '', '[Desktop Action new-window]', 'Name=New Window', 'Exec=/usr/bin/other'].join('\n');

  it('takes the name (in the UI language when given), the program and the icon of the entry itself', () => {
    expect(parseDesktopEntry(firefox)).toEqual({ name: 'Firefox', program: '/usr/bin/firefox', icon: 'firefox' });
    expect(parseDesktopEntry(firefox, 'fa-IR')).toEqual({ name: 'فایرفاکس', program: '/usr/bin/firefox', icon: 'firefox' });
  });

  it.each([
    ['hidden from menus', `${firefox.split('\n').slice(0, 5).join('\n')}\nNoDisplay=true`],
    ['a link, not an application', '[Desktop Entry]\nType=Link\nName=Site\nURL=https://example.com/'],
    ['no program', '[Desktop Entry]\nType=Application\nName=Broken'],
  ])('leaves out an entry %s', (_, text) => {
    expect(parseDesktopEntry(text)).toBeNull();
  });
});
