/**
 * What the monitor knows of each server, as the UI, reachability and the status subscribers read
 * it: the latest result, its statistics over the last 20 intervals, the last 5 measurements, IP
 * info, IPv6 and transfer results, and the long ring for the ping-history chart.
 */
import type { Measurement } from '../../shared/domain/measurement';
import type { ServerId } from '../../shared/domain/server';
import type { LatestStatus, ServerStatus } from '../../shared/domain/status';
import type { MonitorSettings } from '../../shared/settings';
import type { Clock } from '../clock';
import type { ServerRecords } from './records';
import type { ServerDirectory } from './servers';

/** Statistics cover this many intervals. */
const STATISTICS_INTERVALS = 20;

export class StatusView {
  constructor(
    private readonly clock: Clock,
    private readonly records: ServerRecords,
    private readonly servers: Pick<ServerDirectory, 'get' | 'list'>,
    private readonly settings: () => MonitorSettings,
  ) {}

  status(serverId: ServerId): ServerStatus {
    const since = this.clock.now() - this.settings().intervalMs * STATISTICS_INTERVALS;
    return this.records.status(serverId, since, this.servers.get(serverId)?.ipv6);
  }

  /** The status of a server still in the list; null for one removed meanwhile. */
  current(serverId: ServerId): ServerStatus | null {
    return this.servers.get(serverId) ? this.status(serverId) : null;
  }

  /** Every server's status, in subscription order. */
  snapshot(): ServerStatus[] {
    return this.servers.list().map((s) => this.status(s.id));
  }

  /** A server's last measurements and IP info (what reachability reads), without its statistics. */
  observed(serverId: ServerId): Pick<ServerStatus, 'recent' | 'ipInfo'> {
    return this.records.observed(serverId);
  }

  /** Every server's latest status without statistics, in subscription order (the window's list). */
  latest(): LatestStatus[] {
    return this.servers.list().map((s) => this.records.latest(s.id, s.ipv6));
  }

  /** The long ring of URL results (ping-history chart), oldest first. */
  history(serverId: ServerId): Measurement[] {
    return this.records.history(serverId);
  }
}
