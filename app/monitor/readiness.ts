/**
 * Whether a cycle may test a server now (spec/monitor.md): the prober can reach it, and a server
 * that dials through another waits until that one has a result in this run and is not being
 * retested (before that its test would fail or measure a path that is changing).
 */
import type { ServerId } from '../../shared/domain/server';
import type { Flights } from './flights';
import type { Readiness, ServerProber } from './ports';
import type { ServerRecords } from './records';
import type { ServerDirectory } from './servers';

export class ChainReadiness {
  constructor(
    private readonly prober: Pick<ServerProber, 'readiness'>,
    private readonly servers: Pick<ServerDirectory, 'get' | 'name'>,
    private readonly flights: Pick<Flights, 'current'>,
    private readonly records: Pick<ServerRecords, 'get'>,
  ) {}

  of(id: ServerId): Readiness {
    const own = this.prober.readiness(id);
    if (!own.ready) return own;
    const via = this.servers.get(id)?.via;
    if (via && this.servers.get(via)) {
      if (this.flights.current(via)) return { ready: false, reason: `dials through ${this.servers.name(via)}, which is being retested` };
      if (!this.records.get(via)?.resultThisRun) return { ready: false, reason: `dials through ${this.servers.name(via)}, which has no result in this run yet` };
    }
    return own;
  }
}
