/**
 * System-wide mode through sing-box's TUN device in front of the same core (see
 * policy/sing-box-tun.ts), run by an elevated watchdog (policy/elevation.ts): on Windows and
 * macOS, and on Linux when the user chooses it over TPROXY. It plays the part the nftables
 * capture plays for the tunnel:
 *
 * - before every core start the tunnel asks `transparentFor()`: in system-wide mode sing-box is
 *   found and version-checked, and the watchdog is started (the system's dialog, once per
 *   connection; saying no fails the connection, saying why). The core itself needs nothing
 *   extra, so the answer is always null;
 * - connected: sing-box starts on a config pointing at the core's SOCKS5 inbound. An Auto switch
 *   restarts the core on the same SOCKS port, so the TUN stays as it is and only the upstream
 *   changes — unless the new server differs from the old in carrying IPv6, which sing-box's rules
 *   follow (../policy/ipv6-capture.ts), so it restarts on the new config;
 * - the core died: sing-box is stopped at once (traffic flows direct rather than into nothing),
 *   and started again, without a prompt, when the restarted core is up;
 * - disconnected, failed, quit: sing-box and the watchdog stop.
 * The watchdog stops sing-box when the app's process is gone; a record of what ran lets the next
 * start stop a sing-box whose watchdog was killed with the app.
 */
import { connect } from 'node:net';
import { realpath, rm } from 'node:fs/promises';
import type { ConnectionState } from '../../../shared/domain/connection';
import type { Server } from '../../../shared/domain/server';
import { writeConfigFile } from '../../core/config-file';
import { runCore } from '../../core/run-core';
import type { Ipv6Capture, OutboundMarkOnly } from '../../core/transparent';
import { coreCanCapture } from '../core-privilege';
import { DEFAULT_CORE_MARK } from '../linux/policy/capture-plan';
import { freePort } from '../../tunnel/ports';
import { CaptureRecordFile } from '../record';
import { Capture, type CaptureOptions, type CaptureStatus } from '../capture';
import { linuxTunLeftoverRemoval, stopLeftoverCommand, type TunElevation, type TunPlatform } from './policy/elevation';
import { coreBypass } from './policy/core-bypass';
import { LINUX_TUN, linuxTunCoreMarkRules, singBoxTunConfig, withIpv6Policy } from './policy/sing-box-tun';
import { singBoxPerApp, withPerApp } from '../per-app/policy/sing-box-rules';
import { linuxTunLeftoversPresent } from './linux-leftovers';
import { findTunEngine, type TunEngine, type TunEngineSearch } from './tun-engine';
import { poll, readPid, systemTunHost, tunFiles, type TunHost, TunSession } from './tun-session';

const TAG = 'SYSWIDE';

export interface TunCaptureOptions extends CaptureOptions {
  platform: TunPlatform;
  dataDir: string;
  /** Where sing-box's config, its log and the watchdog's files live. */
  runtimeDir: string;
  /** Where sing-box is looked for (the bundled cores' folder, then PATH). */
  search: TunEngineSearch;
  /** The core binary, whose own connections to servers must not enter the TUN. */
  corePath?: string;
  host?: TunHost;
  /** Injected for tests; default: find and version-check sing-box (tun-engine.ts). */
  findEngine?: (search: TunEngineSearch) => Promise<TunEngine>;
  /** How long sing-box may take to bring its device up. */
  readyTimeoutMs?: number;
  watchIntervalMs?: number;
  /** The settings' remote resolver, which sing-box asks through the core for captured DNS. */
  remoteDns?: () => string;
  /** Linux: the app's effective uid (root starts the watchdog without pkexec). */
  euid?: number;
  /** Linux, injected for tests; default: sing-box's rules or device seen on this machine. */
  leftoversPresent?: () => Promise<boolean>;
  /** Linux, injected for tests; default: the core runs as root or holds CAP_NET_ADMIN (core-privilege.ts). */
  coreCanCapture?: (corePath: string) => Promise<boolean>;
  /** Linux: the mark the core puts on its sockets when it can (default DEFAULT_CORE_MARK). */
  coreMark?: number;
}

interface Running {
  /** What the config was written from: a change restarts sing-box, none leaves it be. */
  key: string;
  directPort: number;
}

export class TunCapture extends Capture {
  private session: TunSession | null = null;
  private opening: Promise<TunSession> | null = null;
  private engine: Promise<TunEngine> | null = null;
  private running: Running | null = null;
  private generation = 0;
  private watch: NodeJS.Timeout | null = null;
  private detail: string | null = null;
  private error: string | null = null;
  /** The current server's IPv6 handling, decided before its core starts. */
  private ipv6: { wanted: Ipv6Capture; why: string } = { wanted: 'block', why: '' };
  /** Linux: the mark the current core puts on its own sockets, or null (matched by its path). */
  private coreMark: number | null = null;
  /** Why the core's connections are told by its path rather than its mark (null: by mark). */
  private bypassWhy: string | null = null;
  private readonly host: TunHost;
  private readonly record: CaptureRecordFile;

  constructor(private readonly options: TunCaptureOptions) {
    super(options);
    this.host = options.host ?? systemTunHost;
    this.record = new CaptureRecordFile(options.dataDir);
  }

  private get linux(): boolean {
    return this.options.platform === 'linux';
  }

  private get elevation(): TunElevation {
    return { platform: this.options.platform, asRoot: (this.options.euid ?? process.geteuid?.() ?? -1) === 0 };
  }

  /** Linux: what sing-box cannot take back when it is killed, removed by the watchdog as root. */
  private get afterEngine(): readonly string[] | undefined {
    return this.linux ? linuxTunLeftoverRemoval(LINUX_TUN) : undefined;
  }

  /** Linux: the rule that keeps the core's marked packets out of the device, put in before each start. */
  private get beforeEngine(): readonly string[] | undefined {
    return this.linux ? linuxTunCoreMarkRules(this.options.coreMark ?? DEFAULT_CORE_MARK) : undefined;
  }

  status(): CaptureStatus {
    const active = this.running !== null;
    return { active, method: active ? 'tun' : null, detail: active ? this.detail : null, error: this.error };
  }

  /** While the TUN is up, sing-box's loopback inbound that leads straight out; null otherwise. */
  directProxy(): string | null {
    return this.running ? `http://127.0.0.1:${this.running.directPort}` : null;
  }

  /** The tunnel's question before each core start (see the file's comment). */
  async transparentFor(server?: Server, via?: Server): Promise<OutboundMarkOnly | null> {
    if (this.mode !== 'system-wide') {
      await this.end();
      return null;
    }
    const ipv6 = this.decideIpv6(server);
    this.ipv6 = { wanted: ipv6.ipv6, why: ipv6.why };
    if (!this.options.corePath) throw new Error('system-wide mode needs the core’s path: its own connections must bypass the TUN');
    // By mark where it works (policy/core-bypass.ts says when and why not).
    const hops = [server, via].filter((hop): hop is Server => hop !== undefined);
    const coreMayMark = this.linux && (await (this.options.coreCanCapture ?? coreCanCapture)(this.options.corePath));
    const bypass = coreBypass({ linux: this.linux, coreMayMark, mark: this.options.coreMark ?? DEFAULT_CORE_MARK, hops });
    this.coreMark = bypass.by === 'mark' ? bypass.mark : null;
    this.bypassWhy = bypass.by === 'path' ? bypass.why : null;
    const engine = await this.findEngine();
    await this.openSession(engine);
    return this.coreMark === null ? null : { mark: this.coreMark };
  }

  /**
   * At start-up: a record left behind means the last run ended without stopping sing-box. Its
   * watchdog stops it when the app is gone; only when that was killed too is sing-box still
   * running, and stopping it takes the system's dialog once more.
   */
  async recoverAfterCrash(): Promise<boolean> {
    const { record, unreadable } = await this.record.read();
    if (!record && !unreadable) return false;
    const files = tunFiles(this.options.runtimeDir, '');
    await rm(files.controlFile, { force: true });
    const pids = (await Promise.all([readPid(files.watchdogPidFile), readPid(files.enginePidFile)])).filter((pid): pid is number => pid !== null);
    const left = await poll(async () => {
      const living = pids.filter((pid) => this.host.alive(pid));
      return living.length === 0 ? [] : null;
    }, 3000);
    // Linux: a sing-box killed together with its watchdog also left its rules.
    const leftovers = this.linux && (await (this.options.leftoversPresent ?? linuxTunLeftoversPresent)());
    if (left === null || leftovers) {
      this.options.logger.warn(TAG, `the last run left ${left === null ? 'the TUN engine running' : "the TUN engine's routing rules"}; removing it (the system asks for administrator rights)`);
      const outcome = await this.host.run(stopLeftoverCommand(this.elevation, { pids: pids.filter((pid) => this.host.alive(pid)), configPath: files.configPath, ...(this.afterEngine ? { afterEngine: this.afterEngine } : {}) }));
      if (outcome.code !== 0) {
        this.options.logger.error(TAG, `could not stop the TUN engine a previous run left (exit ${String(outcome.code)}); the record is kept for the next try`);
        return false;
      }
    } else {
      this.options.logger.warn(TAG, 'the last run ended without stopping system-wide mode; its watchdog had stopped the TUN engine');
    }
    await Promise.all([files.watchdogPidFile, files.enginePidFile].map((file) => rm(file, { force: true })));
    await this.record.clear();
    return true;
  }

  /** sing-box and its watchdog gone (disconnect, quit, mode changed). */
  end(): Promise<void> {
    // Taken at once, not in turn: a start still waiting for sing-box gives up instead of making
    // the disconnect wait for it.
    const session = this.session;
    this.session = null;
    this.opening = null;
    this.stopWatching();
    return this.operations.run(async () => {
      const wasRunning = this.running !== null;
      this.running = null;
      if (!session) return;
      this.error = null;
      const pids = [session.watchdogPid, (await session.enginePid()) ?? 0].filter((pid) => pid > 0);
      if (!(await session.stop())) {
        this.options.logger.error(TAG, 'the TUN watchdog did not stop in time; stopping it with administrator rights');
        const outcome = await this.host.run(
          stopLeftoverCommand(this.elevation, { pids: pids.filter((pid) => this.host.alive(pid)), configPath: session.files.configPath, ...(this.afterEngine ? { afterEngine: this.afterEngine } : {}) }),
        );
        // Not stopped: the record stays, and the next start tries again.
        if (outcome.code !== 0) return this.emit();
      }
      await this.record.clear();
      await rm(session.files.configPath, { force: true });
      if (wasRunning) {
        this.options.logger.info(TAG, 'system-wide TUN removed');
        this.emit();
      }
    });
  }

  private findEngine(): Promise<TunEngine> {
    this.engine ??= (this.options.findEngine ?? findTunEngine)(this.options.search).catch((error: unknown) => {
      this.engine = null;
      throw error;
    });
    return this.engine;
  }

  private async openSession(engine: TunEngine): Promise<TunSession> {
    if (this.session?.alive) return this.session;
    if (this.opening) return this.opening;
    const afterEngine = this.afterEngine;
    const beforeEngine = this.beforeEngine;
    const pending: Promise<TunSession> = TunSession.open(this.elevation, tunFiles(this.options.runtimeDir, engine.path), this.host, afterEngine && beforeEngine ? { afterEngine, beforeEngine } : {}).then(
      async (session) => {
        if (this.opening !== pending) {
          await session.stop();
          throw new Error('system-wide mode was turned off while it started');
        }
        this.session = session;
        this.opening = null;
        this.startWatching();
        return session;
      },
      (error: unknown) => {
        if (this.opening === pending) this.opening = null;
        throw error;
      },
    );
    this.opening = pending;
    return pending;
  }

  protected async apply(state: ConnectionState): Promise<void> {
    const session = this.session;
    if (this.mode !== 'system-wide' || !session || !state.socksProxy || !this.options.corePath) return;
    const engine = await this.findEngine();
    const socks = new URL(state.socksProxy);
    const socksHost = socks.hostname.replace(/^\[|\]$/g, '');
    const socksPort = Number(socks.port);
    // sing-box matches the core by the path the OS reports for its process: the real one.
    const corePath = await realpath(this.options.corePath).catch(() => this.options.corePath as string);
    const remoteDns = this.options.remoteDns?.();
    const perApp = singBoxPerApp(this.perApp(), this.options.platform);
    for (const { entry, reason } of perApp.skipped) this.options.logger.warn(TAG, `per-app: ${entry} is not matched: ${reason}`);
    const ipv6 = this.ipv6.wanted;
    const coreMark = this.coreMark;
    const key = JSON.stringify([socksHost, socksPort, corePath, coreMark, this.bypassLan(), remoteDns ?? null, perApp, ipv6]);
    if (this.running?.key === key) return;
    const directPort = await freePort();
    const config = withIpv6Policy(withPerApp(singBoxTunConfig({
      platform: this.options.platform,
      socksHost,
      socksPort,
      directPort,
      corePath,
      ...(coreMark !== null ? { coreMark } : {}),
      bypassLan: this.bypassLan(),
      ...(remoteDns !== undefined ? { remoteDns } : {}),
    }), perApp), ipv6);
    const written = await writeConfigFile(this.options.runtimeDir, 'sing-box-tun', config);
    const check = await runCore(engine.path, ['check', '-c', written], this.options.runtimeDir, 10_000);
    if (written !== session.files.configPath || check.code !== 0) {
      const why = written !== session.files.configPath ? `the runtime folder ${this.options.runtimeDir} cannot be written` : `sing-box refused its config: ${lastLine(check.output)}`;
      return this.failed(`system-wide mode could not start: ${why}`);
    }
    await this.record.save({ version: 1, appliedAt: Date.now(), method: 'tun', port: socksPort, helperPid: session.watchdogPid });
    this.generation += 1;
    await session.run(this.generation);
    const ready = await this.waitUntilReady(session, directPort);
    if (this.session !== session) return;
    if (ready !== true) return this.failed(`the TUN engine (sing-box) did not come up: ${ready}`);
    const restarted = this.running !== null;
    this.running = { key, directPort };
    this.error = null;
    const device = this.linux ? ` ${LINUX_TUN.device}` : '';
    this.detail = `sing-box ${engine.version} TUN${device}: every program's traffic (IPv4, IPv6, TCP, UDP) into the core's SOCKS5 ${socksHost}:${socksPort}; the core's own connections direct (${coreMark !== null ? `by its socket mark 0x${coreMark.toString(16)}, kept out of the device` : `by its path: ${this.bypassWhy ?? 'no mark'}`}); ${this.bypassLan() ? 'LAN direct' : 'LAN captured'}; DNS answered through the core; ${this.ipv6.why}`;
    this.options.logger.info(TAG, `system-wide TUN ${restarted ? 'restarted on a new config' : 'up'}: ${this.detail}`);
    this.emit();
  }

  /** True once sing-box runs and answers on its loopback inbound; otherwise why not. */
  private async waitUntilReady(session: TunSession, directPort: number): Promise<true | string> {
    const outcome = await poll(async () => {
      if (this.session !== session) return 'turned off before it was up';
      if (!session.alive) return `it stopped: ${(await session.logTail()) || 'no output'}`;
      if ((await session.enginePid()) === null) return null;
      return (await accepts(directPort)) ? true : null;
    }, this.options.readyTimeoutMs ?? 20_000);
    return outcome ?? `not up within ${Math.round((this.options.readyTimeoutMs ?? 20_000) / 1000)} s: ${(await session.logTail()) || 'no output'}`;
  }

  protected async lift(why: string): Promise<void> {
    const session = this.session;
    if (!this.running || !session) return;
    this.running = null;
    const down = await session.lift();
    if (down) this.options.logger.warn(TAG, `${why}: system-wide TUN lifted until the core is back (traffic goes direct meanwhile)`);
    else this.options.logger.error(TAG, `${why}: the TUN engine did not stop in time`);
    this.emit();
  }

  /** sing-box could not start or stopped by itself: the watchdog is ended, the error shown. */
  private async failed(error: string): Promise<void> {
    this.error = error;
    this.options.logger.error(TAG, error);
    const session = this.session;
    this.session = null;
    this.running = null;
    this.stopWatching();
    // A watchdog that would not leave may still hold sing-box: the record stays for the next start.
    if (!session || (await session.stop())) await this.record.clear();
    this.emit();
  }

  private startWatching(): void {
    this.stopWatching();
    this.watch = setInterval(() => void this.operations.run(() => this.check()), this.options.watchIntervalMs ?? 1000);
    this.watch.unref();
  }

  private stopWatching(): void {
    if (this.watch) clearInterval(this.watch);
    this.watch = null;
  }

  /** The watchdog or sing-box gone while they should run. */
  private async check(): Promise<void> {
    const session = this.session;
    if (!session) return;
    if (!session.alive) return this.failed(`the TUN engine's watchdog stopped (sing-box with it): ${(await session.logTail()) || 'no output'}`);
    if (this.running && (await session.enginePid()) === null) return this.failed(`the TUN engine (sing-box) stopped: ${(await session.logTail()) || 'no output'}`);
  }
}

function lastLine(output: string): string {
  return (output.split(/\r?\n/).filter((line) => line.trim() !== '').pop() ?? 'no output').slice(0, 300);
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(500, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}
