import { spawn } from 'node:child_process';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { type ElevatedCommand, elevationRefused, startTunCommand, type TunElevation, type TunFiles } from './policy/elevation';
import { processAlive } from '../../process/alive';

/** What the app needs of the machine to run the TUN engine: injected, so tests elevate nothing. */
export interface TunHost {
  /** Runs a command to its end (the system's dialog shows while it runs). */
  run(command: ElevatedCommand): Promise<{ code: number | null; stderr: string }>;
  /** Whether a process exists (one of another user, e.g. root's, counts). */
  alive(pid: number): boolean;
  /** The app's own process, which the watchdog watches. */
  appPid: number;
}

export const systemTunHost: TunHost = {
  run: (command) =>
    new Promise((resolve) => {
      const child = spawn(command.file, command.args, { stdio: ['ignore', 'ignore', 'pipe'], windowsHide: true });
      let stderr = '';
      child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
        if (stderr.length < 8000) stderr += chunk;
      });
      child.once('error', (error) => resolve({ code: null, stderr: error.message }));
      child.once('close', (code) => resolve({ code, stderr }));
    }),
  // EPERM counts: sing-box runs elevated, so it is not ours to signal, but it is there.
  alive: processAlive,
  appPid: process.pid,
};

/** The watchdog's files, all in the app's runtime folder. */
export function tunFiles(runtimeDir: string, singBoxPath: string): TunFiles {
  return {
    singBoxPath,
    configPath: join(runtimeDir, 'sing-box-tun.json'),
    controlFile: join(runtimeDir, 'tun.control'),
    enginePidFile: join(runtimeDir, 'tun-engine.pid'),
    watchdogPidFile: join(runtimeDir, 'tun-watchdog.pid'),
    logFile: join(runtimeDir, 'sing-box.log'),
  };
}

export async function readPid(file: string): Promise<number | null> {
  const text = await readFile(file, 'utf8').catch(() => '');
  const pid = Number.parseInt(text.trim(), 10);
  return Number.isInteger(pid) && pid > 0 ? pid : null;
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls `check` until it returns a value, or gives up after `timeoutMs` (null). */
export async function poll<T>(check: () => Promise<T | null>, timeoutMs: number, everyMs = 100): Promise<T | null> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== null) return value;
    if (Date.now() >= end) return null;
    await pause(everyMs);
  }
}

/**
 * One elevated watchdog (see policy/elevation.ts): opened with the system's dialog, then driven
 * through its control file without asking again.
 */
export class TunSession {
  private constructor(
    readonly files: TunFiles,
    readonly watchdogPid: number,
    private readonly host: TunHost,
  ) {}

  /** Starts the watchdog lifted (sing-box not yet running); throws when the user says no. */
  static async open(elevation: TunElevation, files: TunFiles, host: TunHost, o: { afterEngine?: readonly string[]; beforeEngine?: readonly string[]; startTimeoutMs?: number } = {}): Promise<TunSession> {
    const { platform } = elevation;
    const startTimeoutMs = o.startTimeoutMs ?? 15_000;
    await mkdir(join(files.controlFile, '..'), { recursive: true, mode: 0o700 });
    await Promise.all([files.enginePidFile, files.watchdogPidFile, files.logFile].map((file) => rm(file, { force: true })));
    await writeFile(files.controlFile, 'lift', { mode: 0o600 });
    const outcome = await host.run(startTunCommand(elevation, { ...files, appPid: host.appPid, ...(o.afterEngine ? { afterEngine: o.afterEngine } : {}), ...(o.beforeEngine ? { beforeEngine: o.beforeEngine } : {}) }));
    if (elevationRefused(platform, outcome.code, outcome.stderr)) {
      await rm(files.controlFile, { force: true });
      throw new Error('administrator rights were not granted (the system’s dialog was dismissed or refused): system-wide mode needs them to create its network device; use system-proxy mode to connect without them');
    }
    if (outcome.code !== 0) {
      await rm(files.controlFile, { force: true });
      throw new Error(`the TUN engine could not be started with administrator rights (exit ${String(outcome.code)}${outcome.stderr.trim() ? `: ${outcome.stderr.trim().slice(0, 300)}` : ''})`);
    }
    const pid = await poll(async () => {
      const found = await readPid(files.watchdogPidFile);
      return found !== null && host.alive(found) ? found : null;
    }, startTimeoutMs);
    if (pid === null) {
      await rm(files.controlFile, { force: true });
      throw new Error(`the TUN engine's watchdog did not start within ${Math.round(startTimeoutMs / 1000)} s`);
    }
    return new TunSession(files, pid, host);
  }

  get alive(): boolean {
    return this.host.alive(this.watchdogPid);
  }

  /** sing-box's pid while it runs (as the watchdog says). */
  async enginePid(): Promise<number | null> {
    const pid = await readPid(this.files.enginePidFile);
    return pid !== null && this.host.alive(pid) ? pid : null;
  }

  /** (Re)starts sing-box on the config now in place; `generation` must differ from the last. */
  run(generation: number): Promise<void> {
    return writeFile(this.files.controlFile, `run ${generation}`, { mode: 0o600 });
  }

  /** sing-box stopped, the watchdog kept (traffic goes direct); resolves once it is down. */
  async lift(timeoutMs = 8000): Promise<boolean> {
    await writeFile(this.files.controlFile, 'lift', { mode: 0o600 });
    return (await poll(async () => ((await this.enginePid()) === null ? true : null), timeoutMs)) === true;
  }

  /** sing-box and the watchdog gone; false when the watchdog did not leave in time. */
  async stop(timeoutMs = 8000): Promise<boolean> {
    await rm(this.files.controlFile, { force: true });
    return (await poll(async () => (this.alive ? null : true), timeoutMs)) === true;
  }

  /** The end of sing-box's output: why it stopped, in its words. */
  async logTail(): Promise<string> {
    const text = await readFile(this.files.logFile, 'utf8').catch(() => '');
    const lines = text.split(/\r?\n/).filter((line) => line.trim() !== '');
    return lines.slice(-3).join(' | ').slice(-600);
  }
}
