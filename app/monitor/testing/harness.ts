/**
 * A monitor on a fake clock with a fake prober, for the rule tests: servers are plain vless
 * entries on loopback names, each its own front address unless the test says otherwise.
 */
import type { Server, ServerId } from '../../../shared/domain/server';
import { sampleServer } from '../../../shared/domain/sample-servers';
import type { ServerStatus } from '../../../shared/domain/status';
import { type MonitorSettings, monitorSettingsSchema } from '../../../shared/settings';
import { memoryLogger } from '../../log/logger';
import type { JsonFile } from '../../storage/json-file';
import { FakeClock } from '../../testing/fake-clock';
import type { MonitorCacheData } from '../cache';
import { testMonitor, type TestMonitorOptions } from './test-monitor';
import { FakeDirectCheck, type FakeBehaviour, FakeProber } from './fake-prober';

export function fakeServer(id: ServerId, extra: Partial<Server> = {}): Server {
  return sampleServer('vless', 'tcp', { id, subscriptionId: 'A', name: `server ${id}`, address: `${id}.example.test`, ...extra });
}

export interface HarnessOptions {
  servers?: Server[];
  settings?: Partial<MonitorSettings>;
  selections?: ServerId[];
  behaviours?: Record<ServerId, FakeBehaviour>;
  cacheFile?: JsonFile<MonitorCacheData> | null;
  random?: () => number;
  clock?: FakeClock;
  withDirectCheck?: boolean;
  extra?: Partial<TestMonitorOptions>;
}

export function monitorHarness(options: HarnessOptions = {}) {
  const clock = options.clock ?? new FakeClock();
  const t0 = clock.now();
  let servers = options.servers ?? ['a', 'b', 'c'].map((id) => fakeServer(id));
  const selections = options.selections ?? [];
  const prober = new FakeProber(clock, (id) => servers.find((s) => s.id === id)?.address ?? id);
  for (const [id, behaviour] of Object.entries(options.behaviours ?? {})) prober.set(id, behaviour);
  const { logger, records, lines } = memoryLogger('info');
  // The transfer test is off unless a test asks for it: the other rules' tests count delay tests.
  // When on, it follows every answer unless a test asks for the servers in focus only
  // (monitor.budget.test.ts): the transfer rules' tests are about servers, not about focus.
  const settings = monitorSettingsSchema.parse({ transferTestBytes: 0, transferTestEveryServer: true, ...options.settings });
  const directCheck = new FakeDirectCheck();
  const monitor = testMonitor({
    prober,
    clock,
    logger,
    settings,
    cacheFile: options.cacheFile ?? null,
    servers: () => servers,
    selections: () => selections,
    random: options.random ?? (() => 0),
    directCheck: options.withDirectCheck === false ? undefined : directCheck,
    ...options.extra,
  });
  const updates: { at: number; statuses: ServerStatus[] }[] = [];
  const groupUpdates: { at: number; statuses: ServerStatus[] }[] = [];
  monitor.subscribe((statuses) => updates.push({ at: clock.now() - t0, statuses }));
  monitor.subscribe((statuses) => groupUpdates.push({ at: clock.now() - t0, statuses }), { group: true });
  return {
    clock,
    t0,
    prober,
    monitor,
    directCheck,
    logs: records,
    lines,
    updates,
    groupUpdates,
    /** ms since the harness started. */
    elapsed: () => clock.now() - t0,
    setServers(next: Server[]) {
      servers = next;
      monitor.serversChanged();
    },
    /** Times (ms since start) at which `id` was probed. */
    probeTimes(id: ServerId): number[] {
      return prober.probesOf(id).map((c) => c.at - t0);
    },
    monitoringLines(): string[] {
      return records.filter((r) => r.tag === 'MONITORING').map((r) => `${r.at - t0} ${r.message}`);
    },
  };
}
