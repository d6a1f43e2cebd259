import type { ConnectionState } from '../../shared/domain/connection';
import type { Server, ServerId } from '../../shared/domain/server';
import type { TunnelPort } from '../auto/ports';
import type { ServerIndex } from './server-index';

/** The part of the tunnel controller the driver uses (the real one, or none without a core). */
export interface TunnelOperations {
  connect(server: Server, via?: Server): Promise<ConnectionState>;
  disconnect(): Promise<void>;
  state(): ConnectionState;
}

/**
 * The one owner of "which server should the tunnel be on, and should it be up". The user
 * (connect / disconnect) and Auto (its TunnelPort) both go through it, so a manual connect that
 * also turns Auto off does not restart the core twice, and Auto choosing a server while the VPN is
 * off only changes which server the next connect uses.
 */
export class TunnelDriver implements TunnelPort {
  private target: ServerId | null = null;
  private wanted = false;
  private inFlight: { serverId: ServerId; done: Promise<void> } | null = null;

  constructor(
    private readonly tunnel: () => TunnelOperations | null,
    private readonly servers: ServerIndex,
    private readonly noCoreReason: () => string,
  ) {}

  /** The user wants the VPN on, through this server. */
  connect(serverId: ServerId): Promise<void> {
    this.wanted = true;
    return this.moveTo(serverId);
  }

  async disconnect(): Promise<void> {
    this.wanted = false;
    this.inFlight = null;
    await this.tunnel()?.disconnect();
  }

  /**
   * Starts the core again on the server it is on, when the VPN is up: what the core was started
   * with changed (system-wide mode's inbounds, anti-DPI, the local ports). A connect to the same
   * server would keep the running core as it is.
   */
  async reconnect(): Promise<void> {
    const tunnel = this.tunnel();
    const serverId = tunnel?.state().serverId;
    if (!tunnel || !serverId || !this.connected() || this.inFlight) return;
    const entry = this.servers.withUpstream(serverId);
    if (entry) await tunnel.connect(entry.server, entry.via);
  }

  /** Whether the user wants the VPN on (it may be reconnecting). */
  isWanted(): boolean {
    return this.wanted;
  }

  // TunnelPort (Auto)
  switchTo(serverId: ServerId): Promise<void> {
    if (!this.wanted) {
      this.target = serverId;
      return Promise.resolve();
    }
    return this.moveTo(serverId);
  }

  current(): ServerId | null {
    return this.target ?? this.tunnel()?.state().serverId ?? null;
  }

  connected(): boolean {
    const state = this.tunnel()?.state().state;
    return this.wanted && (state === 'connected' || state === 'reconnecting');
  }

  /** Forget a server that left its subscription (Auto picks the next one). */
  forget(serverId: ServerId): void {
    if (this.target === serverId && !this.wanted) this.target = null;
  }

  private moveTo(serverId: ServerId): Promise<void> {
    if (this.inFlight?.serverId === serverId) return this.inFlight.done;
    const tunnel = this.tunnel();
    if (!tunnel) return Promise.reject(new Error(this.noCoreReason()));
    const state = tunnel.state();
    this.target = serverId;
    if (state.serverId === serverId && (state.state === 'connected' || state.state === 'reconnecting')) return Promise.resolve();
    const entry = this.servers.withUpstream(serverId);
    if (!entry) return Promise.reject(new Error(`no server with id "${serverId}"`));
    const done = tunnel.connect(entry.server, entry.via).then(
      () => undefined,
      (error: unknown) => {
        throw error instanceof Error ? error : new Error(String(error));
      },
    );
    const flight = { serverId, done };
    this.inFlight = flight;
    void done.finally(() => {
      if (this.inFlight === flight) this.inFlight = null;
    }).catch(() => undefined);
    return done;
  }
}
