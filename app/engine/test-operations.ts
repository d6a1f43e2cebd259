/**
 * The contract's test operations (test all, test one, throughput, TCP and ICMP on request,
 * history, a server's whole status, the observation export), answered with statuses as the
 * window shows them.
 */
import type { ServerId } from '../../shared/domain/server';
import type { ServerStatus } from '../../shared/domain/status';
import type { DirectMethod, DirectTestOutcome, Measurement } from '../../shared/domain/measurement';
import type { ObservationExport } from '../../shared/ipc/contract';
import type { TestTrafficUsage } from '../../shared/domain/test-traffic';
import type { HandlersOf } from './contract-handlers';
import type { ServerIndex } from './server-index';
import type { MonitorStatuses, Verdicts, WindowStatuses } from './window-statuses';

export interface MonitorResults extends MonitorStatuses {
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

export function measurementOperations(
  monitor: MonitorResults,
  view: WindowStatuses,
  index: Pick<ServerIndex, 'require'>,
  verdicts: Verdicts,
): HandlersOf<'testAll' | 'testServer' | 'measureThroughput' | 'measureDirect' | 'getHistory' | 'getServerStatus' | 'exportObservation' | 'testTraffic'> {
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
    getServerStatus: async (r) => view.of(index.require(r.serverId).id),
    testTraffic: async () => monitor.testTraffic(),
    exportObservation: async () => {
      const observation = monitor.exportObservation();
      return { ...observation, servers: observation.servers.map((s) => ({ ...s, reachability: verdicts.reachability(s.serverId) })) };
    },
  };
}
