import { describe, expect, it } from 'vitest';
import type { ServerId } from '../../shared/domain/server';
import { totalBytes } from '../../shared/domain/test-traffic';
import { monitorSettingsSchema } from '../../shared/settings';
import type { FakeDownloadHandler } from './testing/fake-prober';
import { fakeServer, monitorHarness } from './testing/harness';

const S = 1000;
const MIN = 60 * S;
const KB = 1024;
const ids = Array.from({ length: 8 }, (_, i) => `s${i}` as ServerId);
const servers = ids.map((id) => fakeServer(id));
const focused = {
  transferTestBytes: 64 * KB,
  transferTestUrl: 'http://127.0.0.1:9/bytes/{bytes}',
  transferTestEveryServer: false,
  transferTestCandidates: 2,
  intervalMs: MIN,
  idleTimeoutMs: 60 * MIN,
  urls: ['http://127.0.0.1:9/generate_204'],
};

function harness(settings: Record<string, unknown> = {}, queue: ServerId[] = ids) {
  let order = queue;
  const h = monitorHarness({ servers, selections: ['s0'], settings: { ...focused, ...settings }, extra: { queue: () => order, ipInfo: false } });
  return { ...h, setQueue: (next: ServerId[]) => void (order = next) };
}

const downloaded = (h: Pick<ReturnType<typeof harness>, 'prober'>) => [...new Set(h.prober.calls.filter((c) => c.kind === 'download').map((c) => c.serverId))].sort();
const downloadsOf = (h: Pick<ReturnType<typeof harness>, 'prober'>, id: ServerId) => h.prober.calls.filter((c) => c.kind === 'download' && c.serverId === id).length;

describe('transfer tests go to the servers in focus', () => {
  it('the current server and the next K of Auto’s queue get one; the others delay probes only', async () => {
    const h = harness();
    await h.monitor.start();
    await h.clock.advance(5 * S);
    expect(h.prober.probesOf('s7')).toHaveLength(1);
    expect(downloaded(h)).toEqual(['s0', 's1', 's2']);
    expect(h.monitor.status('s5').transfer).toBeNull();
  });

  it('the old rule, every server that answers, stays a setting', async () => {
    const h = harness({ transferTestEveryServer: true });
    await h.monitor.start();
    await h.clock.advance(5 * S);
    expect(downloaded(h)).toEqual(ids);
  });

  it('a server that becomes a candidate gets its transfer test as soon as the monitor next looks, its delay known', async () => {
    const h = harness();
    await h.monitor.start();
    await h.clock.advance(5 * S);
    h.setQueue(['s0', 's6', 's1', 's2', 's3', 's4', 's5', 's7']);
    // Any answer brings the new focus: an event test of the current server.
    await h.clock.advance(2 * S);
    void h.monitor.testNow(['s0'], 'member-failed');
    await h.clock.advance(2 * S);
    expect(downloadsOf(h, 's6')).toBe(1);
    expect(downloadsOf(h, 's7')).toBe(0);
  });

  it('a server that becomes a candidate before any answer gets its transfer test after its next delay answer', async () => {
    const h = harness();
    await h.monitor.start();
    await h.clock.advance(5 * S);
    h.setQueue(['s0', 's5', 's1', 's2', 's3', 's4', 's6', 's7']);
    h.monitor.trafficSeen();
    await h.clock.advance(MIN);
    expect(downloadsOf(h, 's5')).toBe(1);
    expect(downloadsOf(h, 's2')).toBe(1);
  });

  it('a connection coming up on a server whose delay answered gets its transfer test at once, not when a test next looks', async () => {
    const selections: ServerId[] = [];
    const h = monitorHarness({ servers, selections, settings: focused, extra: { queue: () => [], ipInfo: false } });
    await h.monitor.start();
    await h.clock.advance(5 * S);
    expect(downloaded(h)).toEqual([]);
    selections.push('s4');
    h.monitor.selectionChanged();
    await h.clock.advance(S);
    expect(downloadsOf(h, 's4')).toBe(1);
    expect(h.monitor.status('s4').transfer?.verdict).toBe('ok');
  });

  it('a server the user opens gets one at once, though no candidate', async () => {
    const h = harness();
    await h.monitor.start();
    await h.clock.advance(5 * S);
    h.monitor.serverOpened('s6');
    await h.clock.advance(S);
    expect(downloadsOf(h, 's6')).toBe(1);
    expect(h.monitor.status('s6').transfer?.verdict).toBe('ok');
  });

  it('a server that froze keeps its verdict until it is tested again, also once it is no candidate', async () => {
    const s1Freezes: FakeDownloadHandler = (id, request) =>
      id === 's1'
        ? { course: { kind: 'stalled', status: 200, bytes: 16 * KB, headersMs: 100, bodyMs: 20 }, afterMs: 120 + request.stallMs }
        : { course: { kind: 'complete', status: 200, bytes: request.maxBytes, headersMs: 100, bodyMs: 40 }, afterMs: 140 };
    const h = harness();
    h.prober.downloadHandler = s1Freezes;
    await h.monitor.start();
    await h.clock.advance(5 * S);
    const froze = h.monitor.status('s1').transfer;
    expect(froze?.verdict).toBe('freezes');
    h.setQueue(['s0', 's2', 's3', 's1']);
    for (let i = 0; i < 5; i++) {
      h.monitor.trafficSeen();
      await h.clock.advance(MIN);
    }
    expect(h.prober.probesOf('s1').length).toBeGreaterThan(3);
    expect(downloadsOf(h, 's1')).toBe(1);
    expect(h.monitor.status('s1').transfer).toEqual(froze);
  });
});

describe('what testing costs', () => {
  it('counts each kind’s bytes up and down, per server and in total', async () => {
    const h = harness();
    await h.monitor.start();
    await h.clock.advance(5 * S);
    const usage = h.monitor.testTraffic();
    expect(usage.lastHour.transfer.down).toBeGreaterThan(3 * 64 * KB);
    expect(usage.lastHour.transfer.down).toBeLessThan(3 * 70 * KB);
    expect(usage.lastHour.delay.up).toBeGreaterThan(8 * 2 * 60);
    expect(usage.lastHour.delay.down).toBeGreaterThan(8 * 2 * 200);
    expect(usage.lastDay).toEqual(usage.lastHour);
    expect(h.monitor.testTrafficOf('s1').transfer.down).toBeGreaterThan(64 * KB);
    expect(h.monitor.testTrafficOf('s5').transfer.down).toBe(0);
    expect(h.monitor.testTrafficOf('s5').delay.up).toBeGreaterThan(0);
    expect(totalBytes(h.monitor.testTrafficTotal())).toBe(totalBytes(usage.lastDay));
  });

  it('the last hour forgets what is older; the last day keeps it', async () => {
    const h = harness({ intervalMs: 3 * 3600 * S });
    await h.monitor.start();
    await h.clock.advance(5 * S);
    const first = totalBytes(h.monitor.testTraffic().lastHour);
    expect(first).toBeGreaterThan(0);
    await h.clock.advance(61 * MIN);
    expect(totalBytes(h.monitor.testTraffic().lastHour)).toBe(0);
    expect(totalBytes(h.monitor.testTraffic().lastDay)).toBe(first);
  });

  it('at the daily cap only delay probes of the current server and the candidates run, and it says so', async () => {
    const h = harness({ testBudgetBytesPerDay: 100 * KB });
    const told: boolean[] = [];
    h.monitor.onTestBudget((capped) => told.push(capped));
    await h.monitor.start();
    await h.clock.advance(5 * S);
    expect(told).toEqual([true]);
    expect(h.monitor.testTraffic().capped).toBe(true);
    const before = h.prober.calls.length;
    h.monitor.trafficSeen();
    await h.clock.advance(MIN);
    const after = h.prober.calls.slice(before);
    expect([...new Set(after.map((c) => c.serverId))].sort()).toEqual(['s0', 's1', 's2']);
    expect(after.every((c) => c.kind === 'probe')).toBe(true);
    // Auto's own transfer test is refused too: the user set the cap.
    expect(await h.monitor.transferTest('s0')).toBeNull();
    expect(h.lines.some((l) => l.includes('daily test budget') && l.includes('spent'))).toBe(true);
    // Raising the cap lets every test run again.
    h.monitor.setSettings(monitorSettingsSchema.parse({ ...focused, testBudgetBytesPerDay: 0 }));
    expect(told).toEqual([true, false]);
  });
});
