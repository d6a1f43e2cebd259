import type { ConnectionState } from '../../shared/domain/connection';
import type { AppSnapshot, VpnClient } from '../../shared/ipc/contract';
import type { Logger } from '../log/logger';
import { desiredSystemProxy, sameTarget } from './policy/desired';
import type { SystemProxy } from './system-proxy';
import type { ProxyTarget } from './target';

/**
 * Follows the engine: the `system-proxy` mode and the connection state decide whether the OS
 * proxy points at the app (see policy/desired.ts). Only changes reach the OS; failures are logged
 * and never stop the app.
 */
export class SystemProxyController {
  private systemProxyOn = false;
  private connection: ConnectionState | null = null;
  /** What was last asked of the OS: null = the user's own settings. */
  private requested: ProxyTarget | null = null;
  private pending: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly proxy: Pick<SystemProxy, 'apply' | 'restore'>,
    private readonly logger: Logger,
  ) {}

  /** Subscribes to the engine's events; returns the unsubscribe function. */
  bind(engine: Pick<VpnClient, 'on'>): () => void {
    const offs = [
      engine.on('snapshot', (snapshot) => this.onSnapshot(snapshot)),
      engine.on('settings', (settings) => this.update({ systemProxyOn: settings.mode === 'system-proxy' })),
      engine.on('connection', (connection) => this.update({ connection })),
    ];
    return () => offs.forEach((off) => off());
  }

  onSnapshot(snapshot: Pick<AppSnapshot, 'settings' | 'connection'>): Promise<void> {
    return this.update({ systemProxyOn: snapshot.settings.mode === 'system-proxy', connection: snapshot.connection });
  }

  update(change: { systemProxyOn?: boolean; connection?: ConnectionState }): Promise<void> {
    if (change.systemProxyOn !== undefined) this.systemProxyOn = change.systemProxyOn;
    if (change.connection !== undefined) this.connection = change.connection;
    if (!this.connection) return this.pending.then(() => undefined);
    const desired = desiredSystemProxy(this.systemProxyOn, this.connection);
    if (desired === 'keep' || sameTarget(desired, this.requested)) return this.pending.then(() => undefined);
    this.requested = desired;
    const step = (): Promise<unknown> => (desired === null ? this.proxy.restore() : this.proxy.apply(desired));
    const next = this.pending.then(step).then(
      () => undefined,
      (error: unknown) => this.logger.error('SYSPROXY', `system proxy change failed: ${error instanceof Error ? error.message : String(error)}`),
    );
    this.pending = next;
    return next;
  }

  /** Waits for queued changes (used before quitting, then `SystemProxy.restore()` runs). */
  settled(): Promise<void> {
    return this.pending.then(() => undefined);
  }
}
