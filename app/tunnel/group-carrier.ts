/**
 * The carrier of one group's carried pick (app/core/group-carriers.ts): a sing-box process
 * hosting that pick behind a loopback SOCKS5 inbound the group's outbound in the main core dials.
 * It lives apart from the main connection's cores: a switch of the group starts the next pick's
 * carrier before the swap and stops this one after, and one that dies is restarted on its own,
 * on the same port (so the main core's outbound needs no change), with the back-off a dead main
 * core gets, while the main core and the other groups carry on. Until it is back the group's
 * connections to it are refused, so its traffic fails at once, never through another server.
 * Its log gives the pick's dial failures, told under the group's tags.
 */
import { randomBytes } from 'node:crypto';
import { rm } from 'node:fs/promises';
import type { Server } from '../../shared/domain/server';
import type { Clock, TimerHandle } from '../clock';
import { type CoreProfile, groupCarrierLabel, groupCarrierTag, type GroupRoute, singBoxCarrierConfig, writeConfigFile } from '../core';
import type { Logger } from '../log/logger';
import { CoreProcess } from './core-process';
import { type AttributedFailure, OutboundFailureTracker } from './outbound-failures';
import { coreStarted, FRESH_HISTORY, restartAfterExit, RESTART_DELAYS_MS, type RestartHistory, STABLE_RUN_MS } from './policy/restart-backoff';

const TAG = 'TUNNEL';

export interface GroupCarrierOptions {
  group: string;
  pick: NonNullable<GroupRoute['pick']>;
  core: CoreProfile;
  /** The loopback port of its SOCKS5 inbound (fresh, picked by the tunnel). */
  port: number;
  /** SO_MARK on its connections to the server (system-wide capture), as the main carrier's. */
  routingMark?: number;
  runtimeDir: string;
  logger: Logger;
  clock: Clock;
  readyTimeoutMs?: number;
  restartDelaysMs?: readonly number[];
  stableRunMs?: number;
  /** A failed dial of the pick, tagged with the group's tags. */
  failure: (failure: AttributedFailure) => void;
}

export class GroupCarrier {
  private process: CoreProcess | null = null;
  private file: string | null = null;
  private stopped = false;
  private timer: TimerHandle | null = null;
  private history: RestartHistory = FRESH_HISTORY;
  private readonly label: string;

  private constructor(private readonly options: GroupCarrierOptions) {
    this.label = groupCarrierLabel(options.group, options.pick.server);
  }

  /**
   * Starts it; resolves once its inbound accepts connections, or, when it cannot start, once the
   * first attempt failed (it keeps trying with back-off): a group's pick that cannot be carried
   * fails the group's traffic, never the main connection.
   */
  static async start(options: GroupCarrierOptions): Promise<GroupCarrier> {
    const carrier = new GroupCarrier(options);
    await carrier.run();
    return carrier;
  }

  get port(): number {
    return this.options.port;
  }

  get server(): Server {
    return this.options.pick.server;
  }

  /** The sing-box process now running, if any (tests kill it). */
  get running(): CoreProcess | null {
    return this.process;
  }

  /** Stops it for good (a switch away, the tunnel closing); its lines after this are nobody's. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.timer?.cancel();
    this.timer = null;
    const core = this.process;
    this.process = null;
    if (core) await core.stop();
    if (this.file) await rm(this.file, { force: true }).catch(() => undefined);
  }

  private async run(): Promise<void> {
    const o = this.options;
    try {
      // A file of its own: the next pick's carrier starts beside it before a swap.
      this.file ??= await writeConfigFile(o.runtimeDir, `group-carrier-${randomBytes(6).toString('hex')}`, singBoxCarrierConfig({ server: o.pick.server, via: o.pick.via, core: o.core, port: o.port, routingMark: o.routingMark, logLevel: 'info' }));
      const core = await CoreProcess.start({ core: o.core, configPath: this.file, readyPort: o.port, readyTimeoutMs: o.readyTimeoutMs, logger: o.logger, logTag: TAG, label: this.label });
      if (this.stopped) {
        await core.stop();
        return;
      }
      this.process = core;
      this.history = coreStarted(this.history, o.clock.now());
      const tracker = new OutboundFailureTracker({ failure: (f) => !this.stopped && o.failure({ ...f, outboundTag: groupCarrierTag(o.group, f.outboundTag) }) }, null);
      core.onLine((line) => tracker.line(line));
      core.onExit((exit) => {
        if (exit.expected || this.stopped || this.process !== core) return;
        this.process = null;
        this.again(exit.description);
      });
    } catch (error) {
      if (!this.stopped) this.again(`could not be started (${error instanceof Error ? error.message : String(error)})`);
    }
  }

  private again(why: string): void {
    const o = this.options;
    const next = restartAfterExit(this.history, o.clock.now(), o.restartDelaysMs ?? RESTART_DELAYS_MS, o.stableRunMs ?? STABLE_RUN_MS);
    this.history = next.history;
    o.logger.warn(TAG, `${this.label} ${why}; the group's traffic fails until it is back: restart ${next.attempt} in ${next.delayMs} ms (the main connection is not touched)`);
    this.timer = o.clock.after(next.delayMs, () => {
      this.timer = null;
      if (!this.stopped) void this.run();
    });
  }
}
