import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';

export interface SessionBus {
  address: string;
  /** The environment a desktop session would give a program: a temporary HOME and config folder, this bus, dconf. */
  env: NodeJS.ProcessEnv;
  stop(): Promise<void>;
}

/**
 * A private D-Bus session with its own HOME and XDG folders, so `gsettings` reads and writes a
 * throw-away dconf database and the real user's settings are never touched. The dconf database
 * lives on disk under `root`, so a second session on the same root sees what the first one wrote
 * (as a desktop does after a restart).
 */
export async function startSessionBus(root: string): Promise<SessionBus> {
  const home = join(root, 'home');
  const runtime = join(root, 'run');
  for (const dir of [home, join(root, 'config'), join(root, 'cache'), runtime]) mkdirSync(dir, { recursive: true, mode: 0o700 });
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    LANG: 'C.UTF-8',
    HOME: home,
    XDG_CONFIG_HOME: join(root, 'config'),
    XDG_CACHE_HOME: join(root, 'cache'),
    XDG_RUNTIME_DIR: runtime,
    // The default backend may be the in-memory one in a bare session; dconf persists like a desktop.
    GSETTINGS_BACKEND: 'dconf',
  };
  const daemon: ChildProcess = spawn('dbus-daemon', ['--session', '--nofork', '--nopidfile', '--print-address=1'], {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const address = await new Promise<string>((resolve, reject) => {
    let out = '';
    let err = '';
    const timer = setTimeout(() => reject(new Error(`dbus-daemon printed no address in 10 s: ${err}`)), 10_000);
    daemon.stdout!.on('data', (chunk) => {
      out += String(chunk);
      const line = out.split('\n')[0];
      if (out.includes('\n') && line) {
        clearTimeout(timer);
        resolve(line.trim());
      }
    });
    daemon.stderr!.on('data', (chunk) => (err += String(chunk)));
    daemon.once('error', (error) => {
      clearTimeout(timer);
      reject(new Error(`dbus-daemon could not start (${error.message}); install the "dbus" package`));
    });
    daemon.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`dbus-daemon exited (${code}): ${err}`));
    });
  });
  return {
    address,
    env: { ...env, DBUS_SESSION_BUS_ADDRESS: address },
    stop: () =>
      new Promise<void>((resolve) => {
        if (daemon.exitCode !== null || daemon.signalCode !== null) return resolve();
        daemon.once('exit', () => resolve());
        daemon.kill('SIGTERM');
      }),
  };
}
