/**
 * System-wide mode on Linux: every new connection of the machine enters the core, except the
 * core's own (marked), this machine's and — with `bypassLan` — the LAN's. It follows the tunnel:
 *
 * - before every core start the tunnel asks `transparentFor()`: in system-wide mode the helper
 *   session is opened then (the password prompt, once per connection) and the core gets its
 *   transparent inbounds and socket mark; in the other modes the answer is null and nothing runs;
 * - connected: capture on (`apply`); an Auto switch restarts the core on the same inbound port and
 *   the capture stays as it is, so the machine's routing does not flap on every switch — only its
 *   IPv6 verdict changes when the new server differs from the old in carrying IPv6
 *   (policy/ipv6-capture.ts: captured when the server carries it, refused at once otherwise);
 * - the core died: capture off at once (traffic flows direct rather than into nothing), back on
 *   when the restarted core is up;
 * - disconnected, failed, quit: capture off and the helper ends.
 * The helper is also the watchdog (see linux/helper.ts), and a record of what was applied lets
 * the next start clean up when both were killed.
 */
import type { Server } from '../../shared/domain/server';
import { type PerAppRequest, perAppRequestOf } from './per-app/policy/nft-rules';
import { spawn } from 'node:child_process';
import type { CaptureMethod, Ipv6Capture, TransparentOptions } from '../core/transparent';
import { freePorts } from '../tunnel/ports';
import { Capture, type CaptureOptions, type CaptureStatus } from './capture';
import { coreCanCapture, coreCannotCaptureReason } from './core-privilege';
import { HelperClient } from './linux/helper-client';
import { DEFAULT_CORE_MARK } from './linux/policy/capture-plan';
import type { LaunchCommand } from './linux/policy/elevation';
import { CaptureRecordFile } from './record';

const TAG = 'SYSWIDE';

export interface SystemWideOptions extends CaptureOptions {
  dataDir: string;
  /** How the helper is started for a session or a one-shot removal (root directly, else pkexec). */
  launch: (mode: 'session' | 'remove') => LaunchCommand;
  platform?: NodeJS.Platform;
  coreMark?: number;
  /** The core binary, checked for CAP_NET_ADMIN before anything is asked of the user. */
  corePath?: string;
  /** Injected for tests; default: root, or the core's file capability (see core-privilege.ts). */
  coreCanCapture?: (corePath: string) => Promise<boolean>;
}

export class SystemWideCapture extends Capture {
  private helper: HelperClient | null = null;
  private opening: Promise<HelperClient> | null = null;
  private inbound: TransparentOptions | null = null;
  private applied = false;
  /** The IPv6 handling the current server wants, and the one the rules in place have. */
  private ipv6: { wanted: Ipv6Capture; why: string } = { wanted: 'block', why: '' };
  private appliedIpv6: Ipv6Capture | null = null;
  private readonly record: CaptureRecordFile;
  private detail: string | null = null;
  private methodDetail = '';
  private perAppDetail = '';
  private perAppUnmatched: { entry: string; reason: string }[] = [];
  private error: string | null = null;

  constructor(private readonly options: SystemWideOptions) {
    super(options);
    this.record = new CaptureRecordFile(options.dataDir);
  }

  status(): CaptureStatus {
    return { active: this.applied, method: this.applied ? (this.inbound?.method ?? null) : null, detail: this.applied ? this.detail : null, error: this.error, perAppUnmatched: this.applied ? this.perAppUnmatched : [] };
  }

  /**
   * While capture is on, where a request goes to leave the machine directly (the core's marked
   * direct outbound); null otherwise (a plain connection already is direct).
   */
  directProxy(): string | null {
    return this.applied && this.inbound ? `http://127.0.0.1:${this.inbound.directPort}` : null;
  }

  /**
   * The tunnel's question before each core start. Throws (the connection then fails, saying why)
   * when system-wide mode cannot run here or administrator rights were not given.
   */
  async transparentFor(server?: Server): Promise<TransparentOptions | null> {
    if (this.mode !== 'system-wide') {
      await this.end();
      return null;
    }
    const platform = this.options.platform ?? process.platform;
    // Windows and macOS have their own capture (tun/tun-capture.ts); see for-platform.ts.
    if (platform !== 'linux') throw new Error(`system-wide mode runs on Linux, Windows and macOS, not on ${platform}; use system-proxy mode`);
    const corePath = this.options.corePath;
    if (corePath && !(await (this.options.coreCanCapture ?? coreCanCapture)(corePath))) throw new Error(coreCannotCaptureReason(corePath));
    const helper = await this.openHelper();
    if (!this.inbound) {
      const coreMark = this.options.coreMark ?? DEFAULT_CORE_MARK;
      const [port, directPort] = (await freePorts(2)) as [number, number];
      const probe = await helper.request({ op: 'probe', plan: { method: 'tproxy', port, coreMark, bypassLan: this.bypassLan() } });
      const method: CaptureMethod = probe.ok ? 'tproxy' : 'redirect';
      if (!probe.ok) this.options.logger.warn(TAG, `TPROXY is not available here (${probe.error}); capturing TCP with REDIRECT, UDP is not captured`);
      this.inbound = { port, method, mark: coreMark, directPort };
    }
    const ipv6 = this.decideIpv6(server);
    this.ipv6 = { wanted: ipv6.ipv6, why: ipv6.why };
    return { ...this.inbound, ipv6: ipv6.ipv6 };
  }

  /** At start-up: a record left behind means nothing cleaned up after the last run; do it now. */
  async recoverAfterCrash(): Promise<boolean> {
    const { record, unreadable } = await this.record.read();
    if (!record && !unreadable) return false;
    const since = record ? new Date(record.appliedAt).toISOString() : 'an unreadable record';
    this.options.logger.warn(TAG, `the last run left system-wide capture in place (${since}); removing it`);
    let command: LaunchCommand;
    try {
      command = this.options.launch('remove');
    } catch (error) {
      this.options.logger.error(TAG, `could not remove the capture a previous run left: ${error instanceof Error ? error.message : String(error)}`);
      return false;
    }
    const { file, args } = command;
    const code = await new Promise<number | null>((resolve) => {
      const child = spawn(file, args, { stdio: 'ignore' });
      child.once('error', () => resolve(null));
      child.once('close', (c: number | null) => resolve(c));
    });
    if (code !== 0) {
      this.options.logger.error(TAG, `could not remove the capture a previous run left (helper exit ${String(code)}); the record is kept for the next try`);
      return false;
    }
    await this.record.clear();
    return true;
  }

  /** Capture off and the helper gone (disconnect, quit, mode changed). */
  end(): Promise<void> {
    return this.operations.run(async () => {
      this.opening = null;
      const helper = this.helper;
      this.helper = null;
      this.inbound = null;
      if (!helper) return;
      const wasApplied = this.applied;
      this.applied = false;
      this.appliedIpv6 = null;
      this.error = null;
      const reply = await helper.end();
      if (reply.ok) {
        await this.record.clear();
        if (wasApplied) this.options.logger.info(TAG, 'system-wide capture removed');
      }
      if (wasApplied) this.emit();
    });
  }

  private async openHelper(): Promise<HelperClient> {
    if (this.helper?.alive) return this.helper;
    this.opening ??= HelperClient.start(this.options.launch('session'), this.options.logger).then(
      (helper) => {
        this.helper = helper;
        this.opening = null;
        void helper.exited.then(() => this.helperGone(helper));
        return helper;
      },
      (error: unknown) => {
        this.opening = null;
        throw error;
      },
    );
    return this.opening;
  }

  private helperGone(helper: HelperClient): void {
    if (this.helper !== helper) return;
    this.helper = null;
    this.inbound = null;
    if (this.applied) {
      this.applied = false;
      this.appliedIpv6 = null;
      this.error = 'the capture helper stopped (it removed the capture on its way out)';
      this.options.logger.error(TAG, this.error);
      this.emit();
    }
  }

  protected async apply(): Promise<void> {
    const helper = this.helper;
    const inbound = this.inbound;
    if (this.mode !== 'system-wide' || !helper || !inbound) return;
    if (this.applied) return this.followIpv6(helper);
    await this.record.save({ version: 1, appliedAt: Date.now(), method: inbound.method, port: inbound.port, helperPid: helper.pid ?? null });
    const perApp = perAppRequestOf(this.perApp());
    const ipv6 = this.ipv6.wanted;
    const reply = await helper.request({ op: 'apply', plan: { method: inbound.method, port: inbound.port, coreMark: inbound.mark, bypassLan: this.bypassLan(), perApp, ipv6 } });
    if (!reply.ok) {
      this.error = `system-wide capture could not be applied: ${reply.error}`;
      this.options.logger.error(TAG, this.error);
      await this.record.clear();
      this.emit();
      return;
    }
    this.applied = true;
    this.appliedIpv6 = ipv6;
    this.error = null;
    // What the helper could not match here is said, in the log and in what was applied: never a silent no-op.
    for (const { entry, reason } of reply.perApp?.skipped ?? []) this.options.logger.warn(TAG, `per-app: ${entry} is not matched: ${reason}`);
    this.perAppDetail = perAppWords(perApp, reply.perApp);
    this.perAppUnmatched = reply.perApp?.skipped ?? [];
    this.detail = this.describe(reply.detail);
    this.options.logger.info(TAG, `system-wide capture applied: ${this.detail}`);
    this.emit();
  }

  private describe(method: string): string {
    const inbound = this.inbound;
    const ports = inbound ? `; core inbound 127.0.0.1:${inbound.port} and [::1]:${inbound.port}` : '';
    this.methodDetail = method;
    return `${method}${ports}; ${this.bypassLan() ? 'LAN direct' : 'LAN captured'}; DNS port 53 captured; ${this.ipv6.why}${this.perAppDetail}`;
  }

  /** After an Auto switch: the capture stays, and only its IPv6 verdict follows the new server. */
  private async followIpv6(helper: HelperClient): Promise<void> {
    const ipv6 = this.ipv6.wanted;
    if (this.appliedIpv6 === ipv6) return;
    const reply = await helper.request({ op: 'ipv6', ipv6 });
    if (!reply.ok) {
      // The old verdict may let IPv6 into a server that cannot carry it: no capture beats that.
      this.options.logger.error(TAG, `the IPv6 handling could not follow the server (${reply.error}); lifting the capture`);
      return this.lift('the IPv6 handling could not be changed');
    }
    this.appliedIpv6 = ipv6;
    this.detail = this.describe(this.methodDetail);
    this.options.logger.info(TAG, `system-wide capture: ${this.ipv6.why}`);
    this.emit();
  }

  protected async lift(why: string): Promise<void> {
    if (!this.applied || !this.helper) return;
    const reply = await this.helper.request({ op: 'lift' });
    this.applied = false;
    this.appliedIpv6 = null;
    if (reply.ok) this.options.logger.warn(TAG, `${why}: system-wide capture lifted until it is back (traffic goes direct meanwhile)`);
    else this.options.logger.error(TAG, `${why}: lifting the capture failed: ${reply.error}`);
    this.emit();
  }
}

function perAppWords(request: PerAppRequest | null, matched: { matched: string; skipped: { entry: string }[] } | undefined): string {
  if (!request) return '';
  const who = [...request.uids.map((uid) => `uid ${uid}`), ...(matched?.matched ? [matched.matched] : [])].join(', ') || 'no app';
  const unmatched = matched && matched.skipped.length > 0 ? `; not matched here: ${matched.skipped.map((s) => s.entry).join(', ')} (see the log)` : '';
  return `${request.mode === 'bypass' ? '; bypassing the VPN: ' : '; only through the VPN: '}${who}${unmatched}`;
}
