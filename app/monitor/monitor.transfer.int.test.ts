/**
 * The transfer test against the lab: real v2ray servers behind the fault relay, the real prober,
 * the target's /bytes/N. A server frozen at 16 KB (the DPI of the field) answers every ping; the
 * transfer test is what names it, within one (shortened) monitor interval, and clears it once the
 * fault is gone. A throttled server is named slow; healthy ones are never marked.
 */
import { describe, expect, it } from 'vitest';
import { startLab } from '../../e2e/lab';
import type { MonitorSettings } from '../../shared/settings';
import { waitFor } from '../testing/wait';
import { TRANSFER_FLOOR_BPS, transferDeadlineMs } from './policy/transfer';
import { labMonitors } from './testing/lab-monitors';

const INTERVAL_MS = 3000;
const URL_TIMEOUT_MS = 3000;
const BYTES = 64 * 1024;
/** A fault set just after a transfer test is seen by the next one: one interval, then the test itself. */
const ONE_INTERVAL_AND_TEST_MS = INTERVAL_MS + transferDeadlineMs(BYTES, URL_TIMEOUT_MS) + 1000;

const world = labMonitors({
  start: () => startLab({ servers: 4, latency: [20, 60] }),
  settings: (lab) => ({
    urls: [lab.info.target],
    transferTestUrl: `${lab.info.bytes}/{bytes}`,
    transferTestBytes: BYTES,
    // Each server here stands for the current one or a candidate: the verdicts are tested, not the focus.
    transferTestEveryServer: true,
    urlTestTimeoutMs: URL_TIMEOUT_MS,
    intervalMs: INTERVAL_MS,
    idleTimeoutMs: 3600_000,
  }),
  options: { ipInfo: false },
  reset: async (lab) => {
    for (const s of lab.info.servers) await lab.setFault(s.id, { fault: 'none', latencyMs: s.latencyMs });
  },
});

function newMonitor(settings: Partial<MonitorSettings> = {}) {
  const { monitor, monitoringLines } = world.newMonitor(settings);
  return { monitor, transferLines: () => monitoringLines('transfer test of') };
}

describe('the transfer test against the lab', () => {
  it('names a server frozen at 16 KB within one interval while its pings still answer, and clears it once the fault is gone', async () => {
    const frozen = world.servers[1]!;
    const { monitor, transferLines } = newMonitor();
    await monitor.start();
    await waitFor('a first transfer result for every server', () => monitor.snapshot().every((s) => s.transfer?.verdict === 'ok'), 15_000);

    await world.lab.setFault(world.lab.info.servers[1]!.id, { fault: 'freeze', afterBytes: 16 * 1024 });
    const seen = await waitFor('the freeze', () => (monitor.status(frozen.id).transfer?.verdict === 'freezes' ? monitor.status(frozen.id) : null), ONE_INTERVAL_AND_TEST_MS);
    expect(seen.delayMs, 'its ping still answers').not.toBeNull();
    expect(seen.transfer!.bytes).toBeGreaterThan(8 * 1024);
    expect(seen.transfer!.bytes).toBeLessThan(16 * 1024);
    expect(transferLines().some((line) => line.includes(`${frozen.name}: freezes: answers pings but stalls after`))).toBe(true);
    expect(world.servers.filter((s) => s !== frozen).every((s) => monitor.status(s.id).transfer?.verdict === 'ok')).toBe(true);

    await world.lab.setFault(world.lab.info.servers[1]!.id, { fault: 'none' });
    await waitFor('the freeze to clear', () => monitor.status(frozen.id).transfer?.verdict === 'ok', ONE_INTERVAL_AND_TEST_MS);
  });

  it('names a throttled server slow, with its speed', async () => {
    const slow = world.servers[2]!;
    await world.lab.setFault(world.lab.info.servers[2]!.id, { fault: 'throttle', bytesPerSecond: 12 * 1024 });
    const { monitor } = newMonitor();
    await monitor.start();
    const test = await waitFor('the throttled verdict', () => monitor.status(slow.id).transfer, 15_000);
    expect(test.verdict).toBe('throttled');
    expect(test.bytesPerSecond).toBeLessThan(TRANSFER_FLOOR_BPS);
    expect(test.bytesPerSecond).toBeGreaterThan(6 * 1024);
  });

  it('never marks a healthy server, over 20 cycles', async () => {
    const { monitor, transferLines } = newMonitor({ intervalMs: 1000 });
    await monitor.start();
    await waitFor('20 transfer tests of every server', () => world.servers.every((s) => transferLines().filter((line) => line.startsWith(`transfer test of ${s.name}:`)).length >= 20), 90_000);
    const verdicts = transferLines().map((line) => line.replace(/^transfer test of .*?: (\w+).*$/, '$1'));
    expect(verdicts.filter((v) => v !== 'ok'), transferLines().filter((line) => !line.includes(': ok')).join('\n')).toEqual([]);
  });
});

