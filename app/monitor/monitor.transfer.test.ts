import { describe, expect, it } from 'vitest';
import { monitorCacheFile } from './cache';
import type { FakeDownloadHandler } from './testing/fake-prober';
import { fakeServer, monitorHarness } from './testing/harness';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const S = 1000;
const MIN = 60 * S;
const KB = 1024;
const transfer = { transferTestBytes: 64 * KB, transferTestUrl: 'http://127.0.0.1:9/bytes/{bytes}', intervalMs: MIN, idleTimeoutMs: 60 * MIN };

/** `b` answers pings but freezes after 16 KB; the others download at full speed. */
const bFreezes: FakeDownloadHandler = (id, request) =>
  id === 'b'
    ? { course: { kind: 'stalled', status: 200, bytes: 16 * KB, headersMs: 100, bodyMs: 20 }, afterMs: 120 + request.stallMs }
    : { course: { kind: 'complete', status: 200, bytes: request.maxBytes, headersMs: 100, bodyMs: 40 }, afterMs: 140 };

const downloads = (h: ReturnType<typeof monitorHarness>, id?: string) => h.prober.calls.filter((c) => c.kind === 'download' && (id === undefined || c.serverId === id));

describe('the transfer test', () => {
  it('follows a successful delay test once per run: freezes with the bytes before the silence, ok with its speed, logged', async () => {
    const h = monitorHarness({ settings: transfer, behaviours: { c: { failMs: 50 } } });
    h.prober.downloadHandler = bFreezes;
    await h.monitor.start();
    await h.clock.advance(5 * S);
    expect(downloads(h).map((c) => c.serverId).sort()).toEqual(['a', 'b']);
    expect(downloads(h, 'a')[0]?.url).toBe('http://127.0.0.1:9/bytes/65536');
    expect(h.monitor.status('b').transfer).toMatchObject({ verdict: 'freezes', bytes: 16 * KB, expectedBytes: 64 * KB, fromCache: false, fragment: false });
    expect(h.monitor.status('a').transfer).toMatchObject({ verdict: 'ok', bytes: 64 * KB, bytesPerSecond: 1_638_400 });
    expect(h.monitor.status('c').transfer).toBeNull();
    const lines = h.monitoringLines().filter((l) => l.includes('transfer test'));
    expect(lines).toHaveLength(2);
    expect(lines.find((l) => l.includes('transfer test of server b'))).toMatch(/freezes: answers pings but stalls after 16\.0 KB/);
    // The delay test of b still says it answers: the freeze is the transfer test's to tell.
    expect(h.monitor.status('b').delayMs).toBe(100);
  });

  it('asked for while the prober core starts, waits for it and tests the server, instead of recording a failure it never tried', async () => {
    const h = monitorHarness({ settings: transfer });
    await h.monitor.start();
    await h.clock.advance(5 * S);
    h.prober.setReady('a', { ready: false, reason: 'the prober core is starting' });
    const verdict = h.monitor.transferTest('a');
    await h.clock.advance(2 * S);
    expect(h.monitor.status('a').transfer?.verdict).toBe('ok');
    const before = downloads(h, 'a').length;
    h.prober.setReady('a', { ready: true });
    await h.clock.advance(S);
    expect(await verdict).toBe('ok');
    expect(downloads(h, 'a')).toHaveLength(before + 1);
    expect(h.monitoringLines().filter((l) => l.includes('transfer test of server a') && l.includes('failed'))).toEqual([]);
  });

  it('is not repeated while fresh, and runs again with the cycle that finds it stale: one download per server per interval', async () => {
    const h = monitorHarness({ settings: transfer });
    await h.monitor.start();
    for (let minute = 0; minute < 5; minute++) {
      h.monitor.trafficSeen();
      // Extra delay tests in between (Auto's checks) do not bring extra downloads.
      await h.clock.advance(20 * S);
      void h.monitor.testNow(['a'], 'member-failed');
      await h.clock.advance(40 * S);
    }
    expect(downloads(h, 'a')).toHaveLength(5);
    expect(downloads(h, 'b')).toHaveLength(5);
  });

  it('tells each result as it is written, with its time and the bytes before a freeze (Auto’s freeze trigger reads them)', async () => {
    const h = monitorHarness({ settings: transfer, behaviours: { c: { failMs: 50 } } });
    h.prober.downloadHandler = bFreezes;
    const told: string[] = [];
    h.monitor.onTransfer((id) => told.push(`${id} ${h.monitor.transferResult(id)?.verdict}`));
    await h.monitor.start();
    await h.clock.advance(5 * S);
    expect(told.sort()).toEqual(['a ok', 'b freezes']);
    expect(h.monitor.transferResult('b')).toMatchObject({ verdict: 'freezes', bytes: 16 * KB, fromCache: false, at: h.monitor.status('b').transfer!.at });
    expect(h.monitor.transferResult('c')).toBeNull();
  });

  it('clears a freeze once a later transfer passes', async () => {
    const h = monitorHarness({ settings: transfer });
    h.prober.downloadHandler = bFreezes;
    await h.monitor.start();
    await h.clock.advance(5 * S);
    expect(h.monitor.status('b').transfer?.verdict).toBe('freezes');
    h.prober.downloadHandler = (_id, request) => ({ course: { kind: 'complete', status: 200, bytes: request.maxBytes, headersMs: 100, bodyMs: 40 }, afterMs: 140 });
    h.monitor.trafficSeen();
    await h.clock.advance(MIN);
    expect(h.monitor.status('b').transfer?.verdict).toBe('ok');
  });

  it('shares the workers with the delay tests: never more than `workers` of both at once', async () => {
    const servers = Array.from({ length: 8 }, (_, i) => fakeServer(`s${i}`));
    const h = monitorHarness({ servers, settings: { ...transfer, workers: 3 } });
    h.prober.downloadHandler = (_id, request) => ({ course: { kind: 'complete', status: 200, bytes: request.maxBytes, headersMs: 100, bodyMs: 900 }, afterMs: 1000 });
    for (const s of servers) h.prober.set(s.id, { answerMs: 200 });
    await h.monitor.start();
    await h.clock.advance(10 * S);
    expect(h.prober.maxInFlight).toBe(3);
    expect(downloads(h)).toHaveLength(8);
    expect(h.monitor.snapshot().every((s) => s.transfer?.verdict === 'ok' && s.delayMs === 200)).toBe(true);
  });

  it('runs only while the connection is used, and not at all when transferTestBytes is 0', async () => {
    const idle = monitorHarness({ settings: { ...transfer, idleTimeoutMs: 2 * MIN } });
    await idle.monitor.start();
    await idle.clock.advance(10 * MIN);
    expect(downloads(idle, 'a')).toHaveLength(2); // at start and one interval later; then idle
    const off = monitorHarness({ settings: { ...transfer, transferTestBytes: 0 } });
    await off.monitor.start();
    await off.clock.advance(5 * S);
    expect(downloads(off)).toHaveLength(0);
  });

  it('notes when the server sends its TLS ClientHello in fragments', async () => {
    const h = monitorHarness({ settings: transfer, extra: { fragmentOn: (id) => id === 'a' } });
    await h.monitor.start();
    await h.clock.advance(5 * S);
    expect(h.monitor.status('a').transfer?.fragment).toBe(true);
    expect(h.monitor.status('b').transfer?.fragment).toBe(false);
    expect(h.monitoringLines().find((l) => l.includes('transfer test of server a'))).toContain('TLS ClientHello fragment on');
  });

  it('is persisted with the other results and loaded as from cache, then retested in the new run', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'steadfast-transfer-'));
    const file = () => monitorCacheFile(dir);
    const first = monitorHarness({ settings: transfer, cacheFile: file() });
    first.prober.downloadHandler = bFreezes;
    await first.monitor.start();
    await first.clock.advance(5 * S);
    await first.monitor.stop();
    const second = monitorHarness({ settings: transfer, cacheFile: file() });
    second.prober.set('b', { silent: true });
    await second.monitor.start();
    expect(second.monitor.status('b').transfer).toMatchObject({ verdict: 'freezes', bytes: 16 * KB, fromCache: true });
    await second.clock.advance(10 * S);
    // b's delay test fails in the new run: its transfer result stays the cached one, marked so.
    expect(second.monitor.status('b').transfer?.fromCache).toBe(true);
    expect(second.monitor.status('a').transfer).toMatchObject({ verdict: 'ok', fromCache: false });
  });
});
