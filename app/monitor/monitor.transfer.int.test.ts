/**
 * The transfer test against the lab: real v2ray servers behind the fault relay, the real prober,
 * the target's /bytes/N. A server frozen at 16 KB (the DPI of the field) answers every ping; the
 * transfer test is what names it, within one (shortened) monitor interval, and clears it once the
 * fault is gone. A throttled server is named slow; healthy ones are never marked.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type InProcessLab, startLab } from '../../e2e/lab';
import type { Server } from '../../shared/domain/server';
import { type MonitorSettings, monitorSettingsSchema } from '../../shared/settings';
import { systemClock } from '../clock';
import { detectCore } from '../core';
import { memoryLogger } from '../log/logger';
import { CoreProber } from '../tunnel/prober';
import { serversFromLinks } from '../tunnel/testing/lab-servers';
import { Monitor } from './monitor';
import { TRANSFER_FLOOR_BPS, transferDeadlineMs } from './policy/transfer';

const INTERVAL_MS = 3000;
const URL_TIMEOUT_MS = 3000;
const BYTES = 64 * 1024;
/** A fault set just after a transfer test is seen by the next one: one interval, then the test itself. */
const ONE_INTERVAL_AND_TEST_MS = INTERVAL_MS + transferDeadlineMs(BYTES, URL_TIMEOUT_MS) + 1000;

let lab: InProcessLab;
let servers: Server[];
let prober: CoreProber;
let dir: string;
const monitors: Monitor[] = [];

beforeAll(async () => {
  lab = await startLab({ servers: 4, latency: [20, 60] });
  servers = serversFromLinks(lab.info.servers.map((s) => s.shareLink));
  dir = await mkdtemp(join(tmpdir(), 'steadfast-transfer-int-'));
  prober = new CoreProber({ core: await detectCore('/usr/bin/v2ray'), runtimeDir: dir, logger: memoryLogger().logger, rebuildDebounceMs: 20 });
  prober.setServers(servers);
  await prober.settled();
});

afterEach(async () => {
  for (const monitor of monitors.splice(0)) await monitor.stop();
  for (const s of lab.info.servers) await lab.setFault(s.id, { fault: 'none', latencyMs: s.latencyMs });
});

afterAll(async () => {
  await prober?.close();
  await lab?.stop();
  await rm(dir, { recursive: true, force: true });
});

function newMonitor(settings: Partial<MonitorSettings> = {}) {
  const log = memoryLogger('info');
  const monitor = new Monitor({
    prober,
    clock: systemClock,
    logger: log.logger,
    settings: monitorSettingsSchema.parse({
      urls: [lab.info.target],
      transferTestUrl: `${lab.info.bytes}/{bytes}`,
      transferTestBytes: BYTES,
      urlTestTimeoutMs: URL_TIMEOUT_MS,
      intervalMs: INTERVAL_MS,
      idleTimeoutMs: 3600_000,
      ...settings,
    }),
    cacheFile: null,
    servers: () => servers,
    selections: () => [],
    ipInfo: false,
  });
  monitors.push(monitor);
  const transferLines = () => log.records.filter((r) => r.tag === 'MONITORING' && r.message.startsWith('transfer test of'));
  return { monitor, transferLines };
}

async function until<T>(what: string, probe: () => T | undefined | null | false, timeoutMs: number): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (value) return value;
    if (Date.now() > end) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe('the transfer test against the lab', () => {
  it('names a server frozen at 16 KB within one interval while its pings still answer, and clears it once the fault is gone', async () => {
    const frozen = servers[1]!;
    const { monitor, transferLines } = newMonitor();
    await monitor.start();
    await until('a first transfer result for every server', () => monitor.snapshot().every((s) => s.transfer?.verdict === 'ok'), 15_000);

    await lab.setFault(lab.info.servers[1]!.id, { fault: 'freeze', afterBytes: 16 * 1024 });
    const seen = await until('the freeze', () => (monitor.status(frozen.id).transfer?.verdict === 'freezes' ? monitor.status(frozen.id) : null), ONE_INTERVAL_AND_TEST_MS);
    expect(seen.delayMs, 'its ping still answers').not.toBeNull();
    expect(seen.transfer!.bytes).toBeGreaterThan(8 * 1024);
    expect(seen.transfer!.bytes).toBeLessThan(16 * 1024);
    expect(transferLines().some((r) => r.message.includes(`${frozen.name}: freezes: answers pings but stalls after`))).toBe(true);
    expect(servers.filter((s) => s !== frozen).every((s) => monitor.status(s.id).transfer?.verdict === 'ok')).toBe(true);

    await lab.setFault(lab.info.servers[1]!.id, { fault: 'none' });
    await until('the freeze to clear', () => monitor.status(frozen.id).transfer?.verdict === 'ok', ONE_INTERVAL_AND_TEST_MS);
  });

  it('names a throttled server slow, with its speed', async () => {
    const slow = servers[2]!;
    await lab.setFault(lab.info.servers[2]!.id, { fault: 'throttle', bytesPerSecond: 12 * 1024 });
    const { monitor } = newMonitor();
    await monitor.start();
    const test = await until('the throttled verdict', () => monitor.status(slow.id).transfer, 15_000);
    expect(test.verdict).toBe('throttled');
    expect(test.bytesPerSecond).toBeLessThan(TRANSFER_FLOOR_BPS);
    expect(test.bytesPerSecond).toBeGreaterThan(6 * 1024);
  });

  it('never marks a healthy server, over 20 cycles', async () => {
    const { monitor, transferLines } = newMonitor({ intervalMs: 1000 });
    await monitor.start();
    await until('20 transfer tests of every server', () => servers.every((s) => transferLines().filter((r) => r.message.startsWith(`transfer test of ${s.name}:`)).length >= 20), 90_000);
    const verdicts = transferLines().map((r) => r.message.replace(/^transfer test of .*?: (\w+).*$/, '$1'));
    expect(verdicts.filter((v) => v !== 'ok'), transferLines().filter((r) => !r.message.includes(': ok')).map((r) => r.message).join('\n')).toEqual([]);
  });
});

