/**
 * The monitor against the lab, for the integration tests: one lab of real v2ray servers behind
 * fault relays, the real prober (a second v2ray hosting every server), and monitors on the system
 * clock that are stopped after each test. Call it at the top of a test file: it registers the
 * file's set-up and tear-down. The file starts the lab (e2e/lab's `startLab`): app/ code, this
 * helper included, never imports the test world.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll } from 'vitest';
import type { Server } from '../../../shared/domain/server';
import { type MonitorSettings, monitorSettingsSchema } from '../../../shared/settings';
import { systemClock } from '../../clock';
import { detectCore } from '../../core';
import { memoryLogger } from '../../log/logger';
import { CoreProber } from '../../tunnel/prober';
import { serversFromLinks } from '../../tunnel/testing/lab-servers';
import type { Monitor } from '../monitor';
import { testMonitor, type TestMonitorOptions } from './test-monitor';

/** What this helper needs of the lab: its servers' share links, and a way to stop it. */
export interface MonitorLab {
  info: { servers: readonly { shareLink: string }[] };
  stop(): Promise<void>;
}

export interface LabMonitorsOptions<Lab extends MonitorLab> {
  /** Starts the file's lab. */
  start: () => Promise<Lab>;
  /** The settings every monitor of the file starts from, given the lab's addresses. */
  settings: (lab: Lab) => Partial<MonitorSettings>;
  /** Options every monitor of the file starts from. */
  options?: Partial<TestMonitorOptions>;
  /** What a test may have changed in the lab, put back after it. */
  reset?: (lab: Lab) => Promise<void>;
}

export function labMonitors<Lab extends MonitorLab>(setup: LabMonitorsOptions<Lab>) {
  let lab: Lab;
  let servers: Server[];
  let prober: CoreProber;
  let dir: string;
  const monitors: Monitor[] = [];

  beforeAll(async () => {
    lab = await setup.start();
    servers = serversFromLinks(lab.info.servers.map((s) => s.shareLink));
    dir = await mkdtemp(join(tmpdir(), 'steadfast-monitor-lab-'));
    prober = new CoreProber({ core: await detectCore('/usr/bin/v2ray'), runtimeDir: dir, logger: memoryLogger().logger, rebuildDebounceMs: 20 });
    prober.setServers(servers);
    await prober.settled();
  });

  afterEach(async () => {
    for (const monitor of monitors.splice(0)) await monitor.stop();
    await setup.reset?.(lab);
  });

  afterAll(async () => {
    await prober?.close();
    await lab?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  return {
    get lab(): Lab {
      return lab;
    },
    /** The lab's servers as the app parses their share links, in the lab's order. */
    get servers(): Server[] {
      return servers;
    },
    /** A directory the file's tests may write in (removed after the file). */
    get dir(): string {
      return dir;
    },
    /** The lab's record of a server: its exit IP, country, latency, IPv6 support. */
    labOf(server: Server): Lab['info']['servers'][number] {
      return lab.info.servers[servers.indexOf(server)]!;
    },
    /** A monitor of every lab server, nothing selected, no cache, until the test ends. */
    newMonitor(settings: Partial<MonitorSettings> = {}, extra: Partial<TestMonitorOptions> = {}) {
      const log = memoryLogger('info');
      const monitor = testMonitor({
        prober,
        clock: systemClock,
        logger: log.logger,
        settings: monitorSettingsSchema.parse({ ...setup.settings(lab), ...settings }),
        cacheFile: null,
        servers: () => servers,
        selections: () => [],
        ...setup.options,
        ...extra,
      });
      monitors.push(monitor);
      /** The MONITORING lines that start with `prefix`. */
      const monitoringLines = (prefix: string) => log.records.filter((r) => r.tag === 'MONITORING' && r.message.startsWith(prefix)).map((r) => r.message);
      return { monitor, log, monitoringLines };
    },
  };
}
