import type { Server } from '../../shared/domain/server';
import type { ConnectionState } from '../../shared/domain/connection';
import { DEFAULT_PER_APP, type PerAppSettings } from '../../shared/per-app';
import type { ConnectionMode } from '../../shared/settings';
import type { CaptureMethod, Ipv6Capture } from '../core/transparent';
import { listenerErrorsTo, Signal } from '../events';
import type { Logger } from '../log/logger';
import { SerialQueue } from '../process/serial-queue';
import { type Ipv6Decision, ipv6CaptureFor, type KnownIpv6 } from './policy/ipv6-capture';
import type { TunnelController } from '../tunnel/controller';
import { followTunnel } from './follow-tunnel';

const TAG = 'SYSWIDE';

export interface CaptureStatus {
  active: boolean;
  /** Linux's nftables method, or `tun` (sing-box's TUN device; on Linux the other choice). */
  method: CaptureMethod | 'tun' | null;
  /** What was applied, in words (for the CLI and the log). */
  detail: string | null;
  /** Why the capture is not in place although it should be (the helper failed, or stopped). */
  error: string | null;
  /** Entries of the per-app list the capture in place cannot match here, and why (absent: none). */
  perAppUnmatched?: { entry: string; reason: string }[];
}

export interface CaptureOptions {
  logger: Logger;
  /** Leave private ranges direct (default true). */
  bypassLan?: () => boolean;
  /** Which apps bypass the VPN, or the only ones that use it (default: off). */
  perApp?: () => PerAppSettings;
  /**
   * What is known of a server's IPv6: the monitor's status where there is one (a declaration wins
   * there too); default the subscription's declaration alone.
   */
  serverIpv6?: (server: Server) => KnownIpv6 | null;
}

/** A server's IPv6 as its subscription declares it, or null when it says nothing. */
export function declaredIpv6(server: Server): KnownIpv6 | null {
  return server.ipv6 === undefined ? null : { supported: server.ipv6, source: 'declared' };
}

/**
 * What Linux's nftables capture (system-wide.ts) and the TUN capture of Windows and macOS
 * (tun/tun-capture.ts) have alike: the connection mode they follow, the status they announce, the
 * user's LAN choice, their operations run one at a time, and how they follow the tunnel.
 */
export abstract class Capture {
  protected mode: ConnectionMode = 'proxy';
  /** The IPv6 verdict the current core was started with (decideIpv6). */
  private ipv6InForce: Ipv6Capture | null = null;
  /** Those the tunnel's events or a timer start have no caller to see a failure: it is logged. */
  protected readonly operations: SerialQueue;
  private readonly changes: Signal<CaptureStatus>;

  protected constructor(private readonly common: CaptureOptions) {
    this.changes = new Signal('capture', listenerErrorsTo(common.logger, TAG));
    this.operations = new SerialQueue((error) => common.logger.error(TAG, String(error)));
  }

  setMode(mode: ConnectionMode): void {
    this.mode = mode;
  }

  abstract status(): CaptureStatus;

  /** Capture off and the privileged side gone (disconnect, quit, mode changed). */
  abstract end(): Promise<void>;

  /** The tunnel is up: put the capture in place. */
  protected abstract apply(state: ConnectionState): Promise<void>;

  /** The core died: traffic flows direct until it is back. */
  protected abstract lift(why: string): Promise<void>;

  /** Follows the tunnel, each step in the queue of operations; returns the unsubscribe function. */
  bind(tunnel: Pick<TunnelController, 'on'>): () => void {
    return followTunnel(tunnel, {
      connected: (state) => void this.operations.run(() => this.apply(state)),
      ended: () => void this.end(),
      coreExited: () => void this.operations.run(() => this.lift('the core stopped')),
    });
  }

  onChange(listener: (status: CaptureStatus) => void): () => void {
    return this.changes.on(listener);
  }

  protected bypassLan(): boolean {
    return this.common.bypassLan?.() ?? true;
  }

  protected perApp(): PerAppSettings {
    return this.common.perApp?.() ?? DEFAULT_PER_APP;
  }

  /** Whether IPv6 is captured for this server or refused (no server: nothing known, refused). */
  protected ipv6For(server: Server | undefined): Ipv6Decision {
    return ipv6CaptureFor(server ? (this.common.serverIpv6 ?? declaredIpv6)(server) : null);
  }

  /** Decides IPv6 for the server whose core is about to start, and remembers it as the one in force. */
  protected decideIpv6(server: Server | undefined): Ipv6Decision {
    const decision = this.ipv6For(server);
    this.ipv6InForce = decision.ipv6;
    return decision;
  }

  /**
   * Whether what is known of the server's IPv6 now asks for another verdict than the one the
   * capture in force was started with: the monitor's check answered after the core started (a
   * first connection to a server), or found otherwise than the cached result it started on. The
   * core's config holds the verdict too, so following it takes a restart on the same server.
   */
  ipv6Outdated(server: Server): boolean {
    if (!this.status().active || this.ipv6InForce === null) return false;
    return this.ipv6For(server).ipv6 !== this.ipv6InForce;
  }

  protected emit(): void {
    this.changes.emit(this.status());
  }
}
