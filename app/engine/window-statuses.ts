/**
 * Each server's status as the window gets it: the monitor's figures with the reachability verdict
 * beside them (the monitor's own StatusView knows nothing of verdicts).
 */
import type { ServerId } from '../../shared/domain/server';
import type { LatestStatus, ServerStatus } from '../../shared/domain/status';
import type { ListStatus } from '../../shared/ipc/contract';

/** What the window's statuses read of the monitor. */
export interface MonitorStatuses {
  status(serverId: ServerId): ServerStatus;
  snapshot(): ServerStatus[];
  latest(): LatestStatus[];
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

  /**
   * Every status as the window's list holds it (the first snapshot), from the monitor's latest
   * results: the statistics a row does not show are not worked out for 5,000 servers.
   */
  listed(): Record<ServerId, ListStatus> {
    const listed: Record<ServerId, ListStatus> = {};
    for (const status of this.monitor.latest()) {
      status.reachability = this.verdicts.reachability(status.serverId);
      listed[status.serverId] = status;
    }
    return listed;
  }
}
