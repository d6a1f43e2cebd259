import { mkdtemp, readdir, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FakeClock } from '../testing/fake-clock';
import { monitorCacheFile } from './cache';
import { fakeServer, monitorHarness } from './testing/harness';
import type { FakeFetchHandler } from './testing/fake-prober';

const S = 1000;
const MIN = 60 * S;

/** An ipapi.co stand-in answering with a country per server. */
const ipapi =
  (countries: Record<string, string>, afterMs = 300): FakeFetchHandler =>
  (serverId) => ({
    status: 200,
    afterMs,
    body: JSON.stringify({ ip: `198.51.100.${serverId.charCodeAt(0)}`, country_code: countries[serverId] ?? 'ZZ', country_name: 'Somewhere', asn: 'AS64500', org: 'Lab' }),
  });

async function tempDir(): Promise<string> {
  return mkdtemp(join(tmpdir(), 'monitor-cache-'));
}

describe('persisted results (spec/monitor.md "Persisted results")', () => {
  it('shows cached pings and countries at once after a restart, marked from cache, then replaces them with fresh ones', async () => {
    const dir = await tempDir();
    const first = monitorHarness({ cacheFile: monitorCacheFile(dir), behaviours: { a: { answerMs: 40 }, b: { answerMs: 90 }, c: { failMs: 10, kind: 'handshake', message: 'handshake rejected' } } });
    first.prober.fetchHandler = ipapi({ a: 'FI', b: 'DE' });
    await first.monitor.start();
    await first.clock.advance(5 * S);
    await first.monitor.stop();

    const clock = new FakeClock(first.clock.now() + 3600_000);
    const second = monitorHarness({ clock, cacheFile: monitorCacheFile(dir), behaviours: { a: { answerMs: 55 }, b: { answerMs: 2000 }, c: { answerMs: 70 } } });
    second.prober.fetchHandler = ipapi({ a: 'SE', b: 'DE', c: 'NL' }, 600);
    await second.monitor.start();
    // Before any fresh test finished:
    expect(second.monitor.snapshot().map((s) => [s.serverId, s.delayMs, s.fromCache, s.ipInfo?.countryCode, s.ipInfo?.fromCache, s.error?.kind])).toEqual([
      ['a', 40, true, 'FI', true, undefined],
      ['b', 90, true, 'DE', true, undefined],
      ['c', null, true, undefined, undefined, 'handshake'],
    ]);
    // The first cycle confirms last run's fastest first.
    expect(second.prober.calls.filter((c) => c.kind === 'probe').map((c) => c.serverId)).toEqual(['a', 'b', 'c']);
    await second.clock.advance(55);
    expect(second.monitor.status('a')).toMatchObject({ delayMs: 55, fromCache: false, ipInfo: { countryCode: 'FI', fromCache: true } });
    await second.clock.advance(5 * S);
    expect(second.monitor.status('a').ipInfo).toMatchObject({ countryCode: 'SE', fromCache: false });
    // b's lookup (600 ms) was faster than its URL test (2000 ms): its time counts as the delay.
    expect(second.monitor.status('b')).toMatchObject({ delayMs: 600, fromCache: false, ipInfo: { countryCode: 'DE', fromCache: false } });
    expect(second.monitor.status('c')).toMatchObject({ delayMs: 70, error: null, ipInfo: { countryCode: 'NL', fromCache: false } });
    await second.monitor.stop();
  });

  it('retests cached results in the first cycle however recent they are', async () => {
    const dir = await tempDir();
    const first = monitorHarness({ cacheFile: monitorCacheFile(dir) });
    await first.monitor.start();
    await first.clock.advance(S);
    await first.monitor.stop();
    const second = monitorHarness({ clock: new FakeClock(first.clock.now() + MIN), cacheFile: monitorCacheFile(dir) });
    await second.monitor.start();
    await second.clock.advance(S);
    expect(second.monitor.snapshot().map((s) => [s.fromCache, s.testedAt])).toEqual([
      [false, second.t0 + 100],
      [false, second.t0 + 100],
      [false, second.t0 + 100],
    ]);
    await second.monitor.stop();
  });

  it('shows "down for now" at stage 1 for a server known only from the cache', async () => {
    const dir = await tempDir();
    const first = monitorHarness({ cacheFile: monitorCacheFile(dir), servers: [fakeServer('a')] });
    await first.monitor.start();
    await first.clock.advance(S);
    await first.monitor.stop();
    const second = monitorHarness({ clock: new FakeClock(first.clock.now() + MIN), cacheFile: monitorCacheFile(dir), servers: [fakeServer('a')], behaviours: { a: { answerMs: 1500 } } });
    // Not started (no cycle): load the cache through start() of a monitor idle from the start.
    await second.monitor.start();
    await second.clock.advance(0);
    const staged = second.monitor.testStaged('a');
    await second.clock.advance(1000);
    expect(second.monitor.status('a')).toMatchObject({ downForNow: true, delayMs: 100, fromCache: true });
    await second.clock.advance(500);
    expect((await staged).delayMs).toBe(1500);
    await second.monitor.stop();
  });

  it('keeps IP info through a failed test, and the last error until an answer', async () => {
    const h = monitorHarness({ servers: [fakeServer('a')], behaviours: { a: { answerMs: 50 } } });
    h.prober.fetchHandler = ipapi({ a: 'FI' });
    await h.monitor.start();
    await h.clock.advance(S);
    expect(h.monitor.status('a').ipInfo?.countryCode).toBe('FI');
    h.prober.set('a', { failMs: 10, kind: 'dns', message: 'no such host' });
    const failed = h.monitor.testNow(['a'], 'user');
    await h.clock.advance(S);
    expect((await failed)[0]).toMatchObject({ delayMs: null, error: { kind: 'dns', message: 'no such host' }, ipInfo: { countryCode: 'FI', fromCache: false } });
    await h.clock.advance(5 * MIN);
    expect(h.monitor.status('a').error?.kind).toBe('dns');
    h.prober.set('a', { answerMs: 50 });
    h.monitor.trafficSeen();
    const ok = h.monitor.testNow(['a'], 'user');
    await h.clock.advance(S);
    expect((await ok)[0]).toMatchObject({ delayMs: 50, error: null });
    // IP info confirmed in this run: no further lookups after later successes.
    expect(h.prober.calls.filter((c) => c.kind === 'fetch')).toHaveLength(1);
  });

  it('never blocks start-up on a corrupt cache: set aside, reported, started empty', async () => {
    const dir = await tempDir();
    await writeFile(join(dir, 'monitor-cache.json'), '{"version":1,"servers":{"a":{"last":');
    const h = monitorHarness({ cacheFile: monitorCacheFile(dir) });
    await h.monitor.start();
    expect(h.monitor.problems).toHaveLength(1);
    expect(h.monitor.problems[0]?.detail).toMatch(/monitor-cache\.json was unreadable \(not valid JSON\); starting empty/);
    expect(h.monitor.snapshot().every((s) => s.testedAt === null)).toBe(true);
    expect((await readdir(dir)).some((f) => f.startsWith('monitor-cache.json.corrupt-'))).toBe(true);
    await h.clock.advance(S);
    expect(h.monitor.status('a').delayMs).toBe(100);
    await h.monitor.stop();
  });

  it('drops the results of servers no longer present, in memory and in the file', async () => {
    const dir = await tempDir();
    const h = monitorHarness({ cacheFile: monitorCacheFile(dir) });
    await h.monitor.start();
    await h.clock.advance(S);
    h.setServers([fakeServer('a'), fakeServer('c')]);
    expect(h.monitor.snapshot().map((s) => s.serverId)).toEqual(['a', 'c']);
    expect(h.monitor.exportObservation().servers.map((s) => s.serverId)).toEqual(['a', 'c']);
    h.setServers([fakeServer('a'), fakeServer('b'), fakeServer('c')]);
    expect(h.monitor.status('b').testedAt).toBeNull();
    await h.monitor.stop();
    const saved = JSON.parse(await readFile(join(dir, 'monitor-cache.json'), 'utf8')) as { servers: Record<string, unknown> };
    expect(Object.keys(saved.servers).sort()).toEqual(['a', 'c']);
  });
});
