/**
 * How the capture helper is started with root rights, as data (tested on any machine): directly
 * when the app already runs as root (the CLI under sudo, a root service), through pkexec — the
 * desktop's own password prompt, driven by polkit — otherwise. The app itself never runs as root.
 * Under Electron the helper runs on Electron's bundled Node (ELECTRON_RUN_AS_NODE), and pkexec
 * clears the environment, so the variable is passed through `env`.
 */
/** A session, or a one-shot: remove a leftover capture, or turn the kill switch off. */
export type HelperMode = 'session' | 'remove' | 'kill-switch-off';

export interface HelperLaunch {
  /** The running program's effective uid (0 = root). */
  euid: number;
  /** process.execPath: node, or the Electron binary. */
  execPath: string;
  /** Flags the runtime needs to load the helper (tsx's loader in development), none when built. */
  execArgv: readonly string[];
  /** The helper's entry script. */
  helperScript: string;
  /** True inside Electron: the binary must be told to behave as Node. */
  electron: boolean;
  mode: HelperMode;
}

export interface LaunchCommand {
  file: string;
  args: string[];
}

export function helperLaunchCommand(o: HelperLaunch): LaunchCommand {
  const program = [...(o.electron ? ['/usr/bin/env', 'ELECTRON_RUN_AS_NODE=1'] : []), o.execPath, ...o.execArgv, o.helperScript, o.mode];
  if (o.euid === 0) {
    const [file, ...args] = program as [string, ...string[]];
    return { file, args };
  }
  return { file: 'pkexec', args: program };
}

/** pkexec's exit codes for "not authorised" and "dialog dismissed" (pkexec(1)), in the user's terms. */
export function elevationRefusal(code: number | null): string | null {
  if (code === 126) return 'administrator rights were not granted (the password dialog was dismissed or refused)';
  if (code === 127) return 'administrator rights could not be asked for (pkexec is missing or no polkit agent is running)';
  return null;
}
