import { join } from 'node:path';
import type { AppSnapshot, VpnClient } from '../../shared/ipc/contract';
import type { Logger } from '../log/logger';
import type { ProblemSink } from '../storage/problem-sink';
import type { ProxyBackend } from './backend';
import type { CommandRunner } from './command';
import { SystemProxyController } from './controller';
import { detectProxyBackends } from './detect';
import { SystemProxy } from './system-proxy';

/** What a host that may change the OS's proxy settings hands the engine. */
export interface SystemProxyHost {
  /** Runs the OS commands that read and write the proxy settings. */
  run: CommandRunner;
  /** The places this OS keeps them; detected (detect.ts) unless given. */
  detectBackends?: (run: CommandRunner) => Promise<ProxyBackend<unknown>[]>;
}

/** The saved-previous-settings file in the data folder (its presence at start means a crashed run). */
export const SYSTEM_PROXY_STATE_FILE = 'system-proxy.json';

/**
 * `system-proxy` mode for the engine: started before anything can connect, it first puts back
 * what a crashed run left pointed at the app; then the OS proxy follows the mode and the
 * connection; `end()` puts the user's own settings back (on quit) and stops following.
 */
export class SystemProxyMode {
  private stopFollowing: (() => void) | null = null;

  private constructor(
    private readonly proxy: SystemProxy,
    private readonly controller: SystemProxyController,
    private readonly logger: Logger,
  ) {}

  /** `problems`: where a failed save of the proxy state file is put for the user. */
  static async start(host: SystemProxyHost, context: { dataDir: string; logger: Logger; problems?: ProblemSink }): Promise<SystemProxyMode> {
    const { logger } = context;
    // Not finding where this OS keeps its proxy settings must not keep the app from starting.
    const backends = await (host.detectBackends ?? detectProxyBackends)(host.run).catch((error: unknown) => {
      logger.error('SYSPROXY', `could not find the system proxy settings, system-proxy mode will not change them: ${String(error)}`);
      return [];
    });
    const proxy = new SystemProxy({ backends, run: host.run, statePath: join(context.dataDir, SYSTEM_PROXY_STATE_FILE), logger, problems: context.problems });
    await proxy.recoverAfterCrash().catch((error: unknown) => logger.error('SYSPROXY', `restore after a crash failed: ${String(error)}`));
    return new SystemProxyMode(proxy, new SystemProxyController(proxy, logger), logger);
  }

  /** Follows the engine's `settings` and `connection` events, from the state they start in. */
  follow(events: Pick<VpnClient, 'on'>, now: Pick<AppSnapshot, 'settings' | 'connection'>): Promise<void> {
    this.stopFollowing?.();
    this.stopFollowing = this.controller.bind(events);
    return this.controller.onSnapshot(now);
  }

  /** Stops following, lets a change under way finish, then restores the user's settings. */
  async end(): Promise<void> {
    this.stopFollowing?.();
    this.stopFollowing = null;
    await this.controller.settled();
    await this.proxy.restore().catch((error: unknown) => this.logger.error('SYSPROXY', `restore on quit failed: ${String(error)}`));
  }
}
