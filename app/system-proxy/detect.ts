import type { ProxyBackend } from './backend';
import type { CommandRunner } from './command';
import { gnomeBackend } from './gnome';
import { kdeBackend } from './kde';
import { macosBackend } from './macos';
import { windowsBackend } from './windows';

/**
 * The places this machine keeps its proxy settings. Linux has no single one: GSettings (GNOME and
 * every GTK-based desktop, and what Firefox and GIO read elsewhere) when its proxy schema is
 * installed, and KDE's kioslaverc inside a Plasma session.
 */
export async function detectProxyBackends(
  run: CommandRunner,
  platform: NodeJS.Platform = process.platform,
  env: NodeJS.ProcessEnv = process.env,
): Promise<ProxyBackend<unknown>[]> {
  if (platform === 'win32') return [windowsBackend() as ProxyBackend<unknown>];
  if (platform === 'darwin') return [macosBackend() as ProxyBackend<unknown>];
  if (platform !== 'linux' && platform !== 'freebsd' && platform !== 'openbsd') return [];
  const found: ProxyBackend<unknown>[] = [];
  if ((await run({ file: 'gsettings', args: ['list-keys', 'org.gnome.system.proxy'] })).code === 0) {
    found.push(gnomeBackend() as ProxyBackend<unknown>);
  }
  if (isKdeSession(env)) {
    for (const version of [6, 5] as const) {
      if ((await run({ file: `kreadconfig${version}`, args: ['--help'] })).code === 0) {
        found.push(kdeBackend(version) as ProxyBackend<unknown>);
        break;
      }
    }
  }
  return found;
}

export function isKdeSession(env: NodeJS.ProcessEnv): boolean {
  return env.KDE_FULL_SESSION === 'true' || /(^|:)KDE(:|$)/i.test(env.XDG_CURRENT_DESKTOP ?? '');
}
