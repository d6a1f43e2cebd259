/**
 * One running core: started under the supervised guard (it cannot outlive the app, even a
 * SIGKILLed one), its output read line by line (logged only through the Logger, which redacts),
 * ready once its inbound accepts connections, stopped with TERM then KILL.
 */
import type { ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { createInterface } from 'node:readline';
import { coreRunArgs, coreRunEnvironment } from '../core';
import type { CoreProfile } from '../core';
import type { Logger } from '../log/logger';
import { spawnSupervised, stopSupervised } from '../process/supervised';
import { interpretCoreLine, withoutColours } from './core-log';
import { accepts } from './ports';
import { listenerErrorsTo, Signal } from '../events';
import { processAlive } from '../process/alive';

export interface CoreProcessOptions {
  core: Pick<CoreProfile, 'path' | 'family' | 'version'>;
  configPath: string;
  /** An inbound port: the core is ready when it accepts connections there. */
  readyPort: number;
  readyHost?: string;
  /** How long the core may take to become ready (default 5 s; v2ray 4.34 needs ~10–30 ms). */
  readyTimeoutMs?: number;
  logger: Logger;
  /** The Logger tag for its lines ("TUNNEL", "PROBER"). */
  logTag: string;
  /** How messages name it ("tunnel core"). */
  label: string;
  /** The folder of the `ext:` files its routing names. */
  assetDir?: string;
}

export interface CoreExit {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** We asked it to stop. */
  expected: boolean;
  /** "exited with code 1", "killed by SIGKILL". */
  description: string;
  /** The last lines it wrote (raw: redact before showing). */
  lastLines: string[];
}

const KEEP_LINES = 20;
const QUIET_CORE_GRACE_MS = 500;
const SIGNALS: Record<number, NodeJS.Signals> = { 1: 'SIGHUP', 2: 'SIGINT', 6: 'SIGABRT', 9: 'SIGKILL', 11: 'SIGSEGV', 15: 'SIGTERM' };

/** A core that exited or never became ready while starting. */
export class CoreStartError extends Error {
  constructor(
    message: string,
    readonly lastLines: string[],
  ) {
    super(message);
    this.name = 'CoreStartError';
  }
}

export class CoreProcess {
  private readonly lines: Signal<string>;
  private readonly exits: Signal<CoreExit>;
  private readonly recent: string[] = [];
  private stopping = false;
  private startedSeen = false;
  private knownCorePid: number | null = null;
  private onStarted: () => void = () => undefined;
  private exitInfo: CoreExit | null = null;
  private readonly exited: Promise<CoreExit>;
  /** Milliseconds from spawn to accepting connections. */
  startMs = Number.NaN;

  private constructor(
    private readonly child: ChildProcess,
    private readonly options: CoreProcessOptions,
  ) {
    const onListenerError = listenerErrorsTo(options.logger, options.logTag);
    this.lines = new Signal('core line', onListenerError);
    this.exits = new Signal('core exit', onListenerError);
    for (const stream of [child.stdout, child.stderr]) {
      if (!stream) continue;
      // sing-box colours its lines even into a pipe: the codes would only clutter the log.
      createInterface({ input: stream, crlfDelay: Infinity }).on('line', (line) => this.onLine(withoutColours(line)));
    }
    this.exited = new Promise((resolve) => {
      child.once('exit', (code, signal) => {
        // The guard is gone. Should it have died alone (killed itself), its core must not live on
        // holding our ports: stop it by pid.
        if (this.knownCorePid !== null && processAlive(this.knownCorePid)) {
          try {
            process.kill(this.knownCorePid, 'SIGKILL');
          } catch {
            // already gone
          }
        }
        // Give the last lines a moment to arrive ('close' = every pipe drained), but do not wait
        // on a pipe some stray process still holds.
        const closed = new Promise<void>((r) => child.once('close', () => r()));
        void Promise.race([closed, new Promise((r) => setTimeout(r, 200))]).then(() => this.exitedWith(code, signal, resolve));
      });
    });
  }

  private exitedWith(code: number | null, signal: NodeJS.Signals | null, resolve: (exit: CoreExit) => void): void {
    const exit = this.describeExit(code, signal);
    this.exitInfo = exit;
    this.options.logger.log(exit.expected ? 'debug' : 'warning', this.options.logTag, `${this.options.label} ${exit.description}`);
    this.exits.emit(exit);
    resolve(exit);
  }

  /** Starts the core and resolves once it accepts connections; rejects with CoreStartError. */
  static async start(options: CoreProcessOptions): Promise<CoreProcess> {
    const args = coreRunArgs(options.core, options.configPath);
    const began = performance.now();
    // Its own process group: a Ctrl-C in the terminal goes to the app, which stops the core in
    // order, instead of killing the core behind the app's back (which would look like a crash).
    const child = spawnSupervised(options.core.path, args, { detached: process.platform !== 'win32', env: { ...process.env, ...coreRunEnvironment(options.core, options.assetDir) } });
    const core = new CoreProcess(child, options);
    child.stdin?.on('error', () => undefined);
    const spawnError = new Promise<Error>((resolve) => child.once('error', resolve));
    const deadline = performance.now() + (options.readyTimeoutMs ?? 5000);
    const host = options.readyHost ?? '127.0.0.1';
    const started = new Promise<void>((resolve) => (core.onStarted = resolve));
    for (;;) {
      if (core.exitInfo) {
        throw new CoreStartError(`${options.label} exited while starting (${core.exitInfo.description})${core.reason()}`, core.lastLines());
      }
      // Ready = it says it started (v2ray-family cores print that once every inbound listens)
      // and its inbound accepts. The port alone is not enough: two v2ray processes can share a
      // port (SO_REUSEPORT), so another core already listening there would answer for ours. A
      // core that logs nothing is polled on its port after a grace period instead.
      const quiet = performance.now() - began > QUIET_CORE_GRACE_MS;
      if ((core.startedSeen || quiet) && (await accepts(options.readyPort, host, 200))) {
        core.startMs = Math.round((performance.now() - began) * 10) / 10;
        core.knownCorePid = core.corePid();
        options.logger.debug(options.logTag, `${options.label} ready in ${core.startMs} ms`);
        return core;
      }
      if (performance.now() > deadline) {
        await core.stop();
        throw new CoreStartError(`${options.label} did not accept connections within ${options.readyTimeoutMs ?? 5000} ms${core.reason()}`, core.lastLines());
      }
      const failed = await Promise.race([spawnError, started.then(() => null), new Promise<null>((r) => setTimeout(() => r(null), 10))]);
      if (failed) throw new CoreStartError(`${options.label} could not be started: ${failed.message}`, []);
    }
  }

  get running(): boolean {
    return this.exitInfo === null;
  }

  /** The guard's pid (the core runs as its child). */
  get pid(): number | undefined {
    return this.child.pid;
  }

  /** The core's own pid (Linux; null where the guard's children cannot be read). */
  corePid(): number | null {
    const guard = this.child.pid;
    if (!guard) return null;
    if (process.platform === 'win32') return guard;
    try {
      const children = readFileSync(`/proc/${guard}/task/${guard}/children`, 'utf8').trim().split(/\s+/).map(Number);
      for (const pid of children) {
        const exe = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0')[0];
        if (exe === this.options.core.path) return pid;
      }
    } catch {
      // not Linux, or already gone
    }
    return null;
  }

  onLine(listener: (line: string) => void): () => void;
  onLine(line: string): void;
  onLine(arg: string | ((line: string) => void)): (() => void) | void {
    if (typeof arg === 'function') {
      return this.lines.on(arg);
    }
    if (!this.startedSeen && interpretCoreLine(arg)?.type === 'started') {
      this.startedSeen = true;
      this.onStarted();
    }
    this.recent.push(arg);
    if (this.recent.length > KEEP_LINES) this.recent.shift();
    this.options.logger.debug(this.options.logTag, `core: ${arg}`);
    this.lines.emit(arg);
  }

  onExit(listener: (exit: CoreExit) => void): () => void {
    if (this.exitInfo) {
      listener(this.exitInfo);
      return () => undefined;
    }
    return this.exits.on(listener);
  }

  lastLines(): string[] {
    return [...this.recent];
  }

  /** TERM, then KILL after `graceMs`; resolves once the core is gone (and reaped). */
  async stop(graceMs = 2000): Promise<CoreExit> {
    this.stopping = true;
    await stopSupervised(this.child, graceMs);
    return this.exited;
  }

  private describeExit(code: number | null, signal: NodeJS.Signals | null): CoreExit {
    // The guard reports a core killed by signal N as exit status 128+N.
    const bySignal = signal ?? (code !== null && code > 128 ? (SIGNALS[code - 128] ?? null) : null);
    const description = bySignal ? `killed by ${bySignal}` : `exited with code ${code}`;
    return { code, signal: bySignal, expected: this.stopping, description, lastLines: this.lastLines() };
  }

  /** ": <why>" from the core's own words when it said why it could not start. */
  private reason(): string {
    for (const line of [...this.recent].reverse()) {
      const event = interpretCoreLine(line);
      if (event?.type === 'listen-failed') return `: cannot listen on ${event.address ?? 'its port'} (${event.detail.split(' > ').pop()})`;
    }
    const last = [...this.recent].reverse().find((l) => /fail|error|invalid/i.test(l));
    return last ? `: ${last.slice(0, 300)}` : '';
  }
}
