import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { SpeedTestProgress } from '../../shared/domain/speed-test';
import { monitorCacheFile } from './cache';
import { speedTestDeadlineMs } from './policy/speed-test';
import { SpeedTestRefused } from './monitor';
import type { FakeDownloadHandler } from './testing/fake-prober';
import { fakeServer, monitorHarness } from './testing/harness';

const S = 1000;
const MB = 1_000_000;
const url = (bytes: number) => `http://127.0.0.1:9/download?bytes=${bytes}`;

/** Server `a` at 1 MB/s, `b` at 4 MB/s, `c` at 2 MB/s, `d` refused; 100 ms of headers each. */
const rates: Record<string, number> = { a: 1 * MB, b: 4 * MB, c: 2 * MB };
const byRate: FakeDownloadHandler = (id, request) => {
  const rate = rates[id];
  if (rate === undefined) return { course: { kind: 'error', error: { kind: 'refused', message: 'connection refused' } }, afterMs: 50 };
  const bodyMs = (request.maxBytes / rate) * 1000;
  return { course: { kind: 'complete', status: 200, bytes: request.maxBytes, headersMs: 100, bodyMs }, afterMs: 100 + bodyMs };
};

function harness(extra: Parameters<typeof monitorHarness>[0] = {}) {
  const h = monitorHarness({ servers: ['a', 'b', 'c', 'd'].map((id) => fakeServer(id)), extra: { throughputUrl: url }, ...extra });
  h.prober.downloadHandler = byRate;
  const progress: SpeedTestProgress[] = [];
  h.monitor.onSpeedTestProgress((p) => progress.push(p));
  return { ...h, progress, downloads: () => h.prober.calls.filter((c) => c.kind === 'download') };
}

describe('the bulk speed test', () => {
  it('downloads through each server K at a time, keeps each speed with the server, and counts the bytes as speed tests', async () => {
    const h = harness();
    h.monitor.startSpeedTest({ serverIds: ['a', 'b', 'c', 'd'], bytes: 2 * MB, parallel: 2 });
    expect(h.downloads().map((c) => c.serverId)).toEqual(['a', 'b']);
    expect(h.downloads()[0]?.url).toBe(url(2 * MB));
    await h.clock.advance(10 * S);
    expect(h.prober.maxInFlight).toBe(2);
    expect(h.monitor.status('a').speedTest).toMatchObject({ bytes: 2 * MB, bytesPerSecond: 1 * MB, error: null, fromCache: false });
    expect(h.monitor.status('b').speedTest?.bytesPerSecond).toBe(4 * MB);
    expect(h.monitor.status('c').speedTest?.bytesPerSecond).toBe(2 * MB);
    expect(h.monitor.status('d').speedTest).toMatchObject({ bytesPerSecond: null, error: 'connection refused' });
    // Auto's queue orders unscored servers by the same figure.
    expect(h.monitor.throughputBps('b')).toBe(4 * MB);
    expect(h.monitor.testTrafficOf('a')['speed-test'].down).toBeGreaterThan(2 * MB);
    expect(h.monitor.testTrafficOf('a').transfer.down).toBe(0);
    expect(h.progress.at(-1)).toMatchObject({ running: false, done: 4, failed: 1, total: 4, ended: 'finished' });
    // Time left was estimated from the pace once the first server finished.
    expect(h.progress.find((p) => p.done === 1)?.remainingMs).toBeGreaterThan(0);
  });

  it('never runs by itself: starting the monitor and its cycles download nothing for it', async () => {
    const h = harness({ settings: { transferTestBytes: 0 } });
    await h.monitor.start();
    await h.clock.advance(30 * 60 * S);
    expect(h.downloads()).toEqual([]);
    expect(h.monitor.speedTestProgress()).toMatchObject({ running: false, ended: null });
    await h.monitor.stop();
  });

  it('refuses a second run while one is under way, and a run of no server', async () => {
    const h = harness();
    h.monitor.startSpeedTest({ serverIds: ['a'], bytes: MB });
    expect(() => h.monitor.startSpeedTest({ serverIds: ['b'] })).toThrow(SpeedTestRefused);
    await h.clock.advance(5 * S);
    expect(() => h.monitor.startSpeedTest({ serverIds: ['gone'] })).toThrow('there is no server to test');
  });

  it('cancel stops every download at once, records none of them, and is idle when they have stopped', async () => {
    const h = harness();
    h.monitor.startSpeedTest({ serverIds: ['a', 'b', 'c'], bytes: 10 * MB, parallel: 2 });
    await h.clock.advance(1 * S);
    const cancelled = h.monitor.cancelSpeedTest();
    await h.clock.advance(0);
    const progress = await cancelled;
    expect(progress).toMatchObject({ running: false, ended: 'cancelled', done: 0 });
    // Both running downloads ended at the cancel; the waiting one never started.
    expect(h.downloads().map((c) => [c.serverId, c.endedAt])).toEqual([
      ['a', h.clock.now()],
      ['b', h.clock.now()],
    ]);
    expect(h.monitor.status('a').speedTest).toBeNull();
    expect(h.monitor.lastSpeedTestCancelMs()).not.toBeNull();
    expect(h.progress.map((p) => [p.cancelling, p.running])).toContainEqual([true, true]);
  });

  it('gives up on a download the prober never ends, at its own deadline, and goes on', async () => {
    const h = harness();
    const hanging = h.prober.download.bind(h.prober);
    // A proxy that accepts and never answers CONNECT, with a prober that kept no deadline.
    h.prober.download = (id, request) => (id === 'a' ? new Promise(() => undefined) : hanging(id, request));
    h.monitor.startSpeedTest({ serverIds: ['a', 'b'], bytes: MB, parallel: 1 });
    await h.clock.advance(speedTestDeadlineMs(MB));
    expect(h.monitor.speedTestProgress().done).toBe(0);
    await h.clock.advance(10 * S);
    expect(h.monitor.status('a').speedTest).toMatchObject({ bytesPerSecond: null, error: expect.stringMatching(/no answer within \d+ s/) });
    await h.clock.advance(5 * S);
    expect(h.monitor.status('b').speedTest?.bytesPerSecond).toBe(4 * MB);
    expect(h.monitor.speedTestProgress()).toMatchObject({ running: false, ended: 'finished' });
  });

  it('keeps the results in the cache: the next run shows them, marked from cache', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'speedtest-cache-'));
    const first = harness({ cacheFile: monitorCacheFile(dir) });
    await first.monitor.start();
    first.monitor.startSpeedTest({ serverIds: ['b'], bytes: MB });
    await first.clock.advance(5 * S);
    await first.monitor.stop();
    const next = harness({ cacheFile: monitorCacheFile(dir) });
    await next.monitor.start();
    expect(next.monitor.status('b').speedTest).toMatchObject({ bytesPerSecond: 4 * MB, bytes: MB, fromCache: true });
    await next.monitor.stop();
  });

  it('keeps no result for a server that left its subscription during the run', async () => {
    const h = harness();
    h.monitor.startSpeedTest({ serverIds: ['a', 'b'], bytes: MB });
    h.setServers(['b'].map((id) => fakeServer(id)));
    await h.clock.advance(5 * S);
    expect(h.monitor.status('a').speedTest).toBeNull();
    expect(h.monitor.status('b').speedTest?.bytesPerSecond).toBe(4 * MB);
    expect(h.monitor.speedTestProgress()).toMatchObject({ running: false, done: 2 });
  });
});
