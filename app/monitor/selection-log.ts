/**
 * The LOWEST lines of spec/monitor.md: what each lowest-delay group decided (member kept or
 * taken), with the fastest member and the reason, each member named with its latest delay.
 */
import type { ServerId } from '../../shared/domain/server';
import type { Clock } from '../clock';
import type { Logger } from '../log/logger';
import type { ServerRecords } from './records';
import type { ServerDirectory } from './servers';

export interface SelectionReport {
  /** The group's name as the log should show it (e.g. "Auto (subscription A)"). */
  group: string;
  decision: 'kept' | 'taken';
  serverId: ServerId;
  fastestId: ServerId | null;
  reason: string;
}

export class SelectionLog {
  constructor(
    private readonly logger: Logger,
    private readonly clock: Clock,
    private readonly servers: Pick<ServerDirectory, 'name'>,
    private readonly records: Pick<ServerRecords, 'get'>,
  ) {}

  report(report: SelectionReport): void {
    const fastest = report.fastestId ? `fastest ${this.describe(report.fastestId)}` : 'no member answered';
    this.logger.log('info', 'LOWEST', `${report.group}: ${report.decision} ${this.describe(report.serverId)}, ${fastest}: ${report.reason}`, this.clock.now());
  }

  private describe(id: ServerId): string {
    const delay = this.records.get(id)?.last?.delayMs;
    return `${this.servers.name(id)} (${delay === null || delay === undefined ? 'no answer' : `${delay} ms`})`;
  }
}
