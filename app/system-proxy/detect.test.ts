import { describe, expect, it } from 'vitest';
import type { Command, CommandResult } from './command';
import { detectProxyBackends, isKdeSession } from './detect';

function machine(available: string[]) {
  return async ({ file, args }: Command): Promise<CommandResult> =>
    available.includes(file) && !(file === 'gsettings' && args[1] !== 'org.gnome.system.proxy')
      ? { code: 0, stdout: '', stderr: '' }
      : { code: null, stdout: '', stderr: 'not found' };
}

describe('detectProxyBackends', () => {
  it('Windows uses the registry, macOS networksetup', async () => {
    expect((await detectProxyBackends(machine([]), 'win32', {})).map((b) => b.id)).toEqual(['windows']);
    expect((await detectProxyBackends(machine([]), 'darwin', {})).map((b) => b.id)).toEqual(['macos']);
  });

  it('Linux: GSettings when its proxy schema is there, KDE only inside a Plasma session (newest kconfig tools first)', async () => {
    const ids = async (tools: string[], env: NodeJS.ProcessEnv) => (await detectProxyBackends(machine(tools), 'linux', env)).map((b) => b.id);
    expect(await ids(['gsettings'], { XDG_CURRENT_DESKTOP: 'GNOME' })).toEqual(['gnome']);
    expect(await ids(['gsettings', 'kreadconfig5'], { XDG_CURRENT_DESKTOP: 'GNOME' })).toEqual(['gnome']);
    expect(await ids(['gsettings', 'kreadconfig5'], { XDG_CURRENT_DESKTOP: 'KDE' })).toEqual(['gnome', 'kde']);
    expect(await ids(['kreadconfig6'], { KDE_FULL_SESSION: 'true' })).toEqual(['kde']);
    expect(await ids([], { XDG_CURRENT_DESKTOP: 'sway' })).toEqual([]);
  });

  it('recognises a Plasma session from XDG_CURRENT_DESKTOP lists', () => {
    expect(isKdeSession({ XDG_CURRENT_DESKTOP: 'ubuntu:KDE' })).toBe(true);
    expect(isKdeSession({ XDG_CURRENT_DESKTOP: 'KDEX' })).toBe(false);
  });
});
