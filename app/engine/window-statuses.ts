/**
 * Each server's status as the window gets it: the monitor's figures with the reachability verdict
 * beside them (the monitor's own StatusView knows nothing of verdicts).
 */
import type { ServerId } from '../../shared/domain/server';
import type { ServerStatus } from '../../shared/domain/status';

/** What the window's statuses read of the monitor. */
export interface MonitorStatuses {
  status(serverId: ServerId): ServerStatus;
  snapshot(): ServerStatus[];
}

export interface Verdicts {
  reachability(serverId: ServerId): ServerStatus['reachability'];
}

/** A server's status as the window shows it: the monitor's figures with the reachability verdict. */
export class WindowStatuses {
  constructor(
    private readonly monitor: MonitorStatuses,
    private readonly verdicts: Verdicts,
  ) {}

  of(serverId: ServerId): ServerStatus {
    return this.with(this.monitor.status(serverId));
  }

  with(status: ServerStatus): ServerStatus {
    return { ...status, reachability: this.verdicts.reachability(status.serverId) };
  }

  all(): Record<ServerId, ServerStatus> {
    return Object.fromEntries(this.monitor.snapshot().map((status) => [status.serverId, this.with(status)]));
  }
}
