import { mkdir, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { App } from 'electron';
import type { Logger } from '../../app/log/logger';

/** On the command line of a start at login: start in the tray, without a window. */
export const HIDDEN_FLAG = '--hidden';
export const AUTOSTART_FILE = 'steadfast-vpn.desktop';

export interface LoginItemOptions {
  platform: NodeJS.Platform;
  /** What the OS should start: the executable, or the AppImage file when run from one ($APPIMAGE). */
  executable: string;
  /** ~/.config (XDG_CONFIG_HOME): its autostart/ folder is where Linux desktops look. */
  configHome: string;
  logger: Logger;
}

/**
 * Start at login, as each OS does it: a login item on macOS (opened hidden) and Windows (the Run
 * key, with --hidden), and on Linux an XDG autostart entry (~/.config/autostart/*.desktop), which
 * Electron does not write. Turning it off removes what was written; nothing else is touched.
 */
export async function applyLoginItem(app: Pick<App, 'setLoginItemSettings'>, enabled: boolean, options: LoginItemOptions): Promise<void> {
  if (options.platform === 'linux') {
    const file = join(options.configHome, 'autostart', AUTOSTART_FILE);
    if (enabled) {
      await mkdir(dirname(file), { recursive: true });
      await writeFile(file, autostartEntry(options.executable), { mode: 0o644 });
    } else {
      await rm(file, { force: true });
    }
  } else if (options.platform === 'darwin') {
    app.setLoginItemSettings({ openAtLogin: enabled, openAsHidden: true });
  } else {
    app.setLoginItemSettings({ openAtLogin: enabled, path: options.executable, args: [HIDDEN_FLAG] });
  }
  options.logger.info('STARTUP', `start at login ${enabled ? 'on' : 'off'}`);
}

/** The freedesktop.org autostart entry; the path is quoted as the Desktop Entry spec asks. */
export function autostartEntry(executable: string): string {
  const quoted = `"${executable.replace(/(["`$\\])/g, '\\$1')}"`;
  return ['[Desktop Entry]', 'Type=Application', 'Name=Steadfast VPN', 'Comment=Start Steadfast VPN in the tray', `Exec=${quoted} ${HIDDEN_FLAG}`, 'Icon=steadfast-vpn', 'Terminal=false', 'X-GNOME-Autostart-enabled=true', ''].join('\n');
}

/** Whether this start came from the login item: then the window stays in the tray. */
export function startedHidden(app: Pick<App, 'getLoginItemSettings'>, argv: readonly string[], platform: NodeJS.Platform): boolean {
  if (argv.includes(HIDDEN_FLAG)) return true;
  return platform === 'darwin' && app.getLoginItemSettings().wasOpenedAsHidden === true;
}

export interface StartupEngine {
  on(event: 'settings', listener: (settings: { startAtLogin: boolean }) => void): () => void;
  connect(request: Record<string, never>): Promise<unknown>;
}

/**
 * The start-up settings at work: the login item follows `startAtLogin` (applied at start, then
 * on each change), and `connectOnStart` connects once, to Auto's pick when Auto is on (the
 * engine's Connect without a server). Returns the unsubscribe.
 */
export function followStartupSettings(
  app: Pick<App, 'setLoginItemSettings'>,
  engine: StartupEngine,
  initial: { startAtLogin: boolean; connectOnStart: boolean; connected: boolean },
  options: LoginItemOptions,
): () => void {
  let applied: boolean | null = null;
  const apply = (enabled: boolean) => {
    if (enabled === applied) return;
    applied = enabled;
    applyLoginItem(app, enabled, options).catch((error: unknown) => options.logger.warn('STARTUP', `could not change start at login: ${error instanceof Error ? error.message : String(error)}`));
  };
  // Off by default, and then nothing is written: a user who never asked leaves no trace.
  if (initial.startAtLogin) apply(true);
  else applied = false;
  const off = engine.on('settings', (settings) => apply(settings.startAtLogin));
  if (initial.connectOnStart && !initial.connected) {
    engine.connect({}).catch((error: unknown) => options.logger.warn('STARTUP', `connect on start failed: ${error instanceof Error ? error.message : String(error)}`));
  }
  return off;
}
