/**
 * Each server's status as the window gets it: the monitor's figures with the reachability verdict
 * beside them (the monitor's own StatusView knows nothing of verdicts).
 */
import type { ServerId } from '../../shared/domain/server';
import type { ServerStatus } from '../../shared/domain/status';
import type { ListStatus } from '../../shared/ipc/contract';
import { statusForList } from './ui-view';

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

  /** Every status as the window's list holds it (the first snapshot). */
  listed(): Record<ServerId, ListStatus> {
    return Object.fromEntries(this.monitor.snapshot().map((status) => [status.serverId, statusForList(this.with(status))]));
  }
}
