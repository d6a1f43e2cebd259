/**
 * The monitor's results as the window gets them: each server's status with the reachability
 * verdict beside it, and the contract's test operations (test all, test one, throughput, TCP and
 * ICMP on request, history, the observation export).
 */
import type { ServerId } from '../../shared/domain/server';
import type { ServerStatus } from '../../shared/domain/status';
import type { DirectMethod, DirectTestOutcome, Measurement } from '../../shared/domain/measurement';
import type { ObservationExport } from '../../shared/ipc/contract';
import type { TestTrafficUsage } from '../../shared/domain/test-traffic';
import type { HandlersOf } from './contract-handlers';
import type { ServerIndex } from './server-index';

export interface MonitorResults {
  status(serverId: ServerId): ServerStatus;
  snapshot(): ServerStatus[];
  testAll(): void;
  testStaged(serverId: ServerId): Promise<ServerStatus>;
  measureThroughput(serverId: ServerId): Promise<ServerStatus>;
  measureDirect(serverId: ServerId, method: DirectMethod): Promise<DirectTestOutcome>;
  history(serverId: ServerId): Measurement[];
  exportObservation(): ObservationExport;
  /** The user opened a server: it gets transfer tests for a while (the window asks its history as its details open). */
  serverOpened(serverId: ServerId): void;
  testTraffic(): TestTrafficUsage;
}

export interface Verdicts {
  reachability(serverId: ServerId): ServerStatus['reachability'];
}

/** A server's status as the window shows it: the monitor's figures with the reachability verdict. */
export class StatusView {
  constructor(
    private readonly monitor: Pick<MonitorResults, 'status' | 'snapshot'>,
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

export function measurementOperations(
  monitor: MonitorResults,
  view: StatusView,
  index: Pick<ServerIndex, 'require'>,
  verdicts: Verdicts,
): HandlersOf<'testAll' | 'testServer' | 'measureThroughput' | 'measureDirect' | 'getHistory' | 'exportObservation' | 'testTraffic'> {
  return {
    testAll: async () => {
      monitor.testAll();
      return null;
    },
    testServer: async (r) => {
      index.require(r.serverId);
      return view.with(await monitor.testStaged(r.serverId));
    },
    measureThroughput: async (r) => {
      index.require(r.serverId);
      return view.with(await monitor.measureThroughput(r.serverId));
    },
    measureDirect: async (r) => {
      index.require(r.serverId);
      const outcome = await monitor.measureDirect(r.serverId, r.method);
      return { outcome, status: view.with(monitor.status(r.serverId)) };
    },
    getHistory: async (r) => {
      index.require(r.serverId);
      // The window asks a server's history when its details open: the server the user opened.
      monitor.serverOpened(r.serverId);
      return monitor.history(r.serverId);
    },
    testTraffic: async () => monitor.testTraffic(),
    exportObservation: async () => {
      const observation = monitor.exportObservation();
      return { ...observation, servers: observation.servers.map((s) => ({ ...s, reachability: verdicts.reachability(s.serverId) })) };
    },
  };
}
