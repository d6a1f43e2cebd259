/**
 * The observation export (spec/observatory.md): every server's status with the observatory's
 * fields, and the batch counters of failures confirmed alone or overturned.
 */
import type { ObservationExport } from '../../shared/ipc/contract';
import type { Clock } from '../clock';
import { observatoryStatus } from './policy/observatory';
import type { ServerRecords } from './records';
import type { CycleScheduler } from './scheduler';
import type { ServerDirectory } from './servers';
import type { StatusView } from './status-view';

export class ObservationExporter {
  constructor(
    private readonly clock: Clock,
    private readonly records: Pick<ServerRecords, 'get'>,
    private readonly servers: Pick<ServerDirectory, 'list'>,
    private readonly view: Pick<StatusView, 'status'>,
    private readonly scheduler: Pick<CycleScheduler, 'batch'>,
  ) {}

  export(): ObservationExport {
    return {
      exportedAt: this.clock.now(),
      servers: this.servers.list().map((s) => {
        const record = this.records.get(s.id);
        return { ...this.view.status(s.id), ...observatoryStatus(record?.last ?? null, record?.history ?? []), name: s.name, subscriptionId: s.subscriptionId };
      }),
      batch: { ...this.scheduler.batch },
    };
  }
}
