import { describe, expect, it } from 'vitest';
import { mulberry32 } from '../testing/random';
import { fakeServer, monitorHarness } from './testing/harness';

const S = 1000;
const MIN = 60 * S;

describe('monitor scheduling (spec/monitor.md "When tests run")', () => {
  it('at start tests the selected server at once beside the cycle, and publishes it without debounce', async () => {
    const h = monitorHarness({ selections: ['c'], settings: { workers: 1 }, behaviours: { a: { answerMs: 100 }, b: { answerMs: 100 }, c: { answerMs: 80 } } });
    await h.monitor.start();
    await h.clock.advance(S);
    expect(h.probeTimes('c')).toEqual([0]);
    expect(h.probeTimes('a')).toEqual([0]);
    // c was tested by the start test: the cycle does not ping it a second time.
    expect(h.probeTimes('b')).toEqual([100]);
    const firstC = h.updates.find((u) => u.statuses.some((s) => s.serverId === 'c' && s.delayMs === 80));
    expect(firstC?.at).toBe(80);
  });

  it('runs cycles every interval, fastest first by last result, then untested, then failed', async () => {
    const h = monitorHarness({
      servers: ['a', 'b', 'c', 'd', 'e'].map((id) => fakeServer(id)),
      settings: { workers: 1 },
      behaviours: { a: { answerMs: 300 }, b: { answerMs: 50 }, c: { failMs: 10 }, d: { answerMs: 150 }, e: { answerMs: 20 } },
    });
    await h.monitor.start();
    h.monitor.trafficSeen();
    await h.clock.advance(5 * MIN - S);
    h.setServers([...['a', 'b', 'c', 'd', 'e'].map((id) => fakeServer(id)), fakeServer('new')]);
    h.monitor.trafficSeen();
    await h.clock.advance(2 * S);
    const cycle2 = h.prober.calls.filter((c) => c.kind === 'probe' && c.at - h.t0 >= 5 * MIN).map((c) => c.serverId);
    expect(cycle2).toEqual(['e', 'b', 'd', 'a', 'new', 'c']);
    expect(h.probeTimes('e')).toEqual([510, 5 * MIN]);
  });

  it('spreads a scheduled cycle at random over a quarter of the interval, fastest first; the start cycle runs at once', async () => {
    const servers = Array.from({ length: 40 }, (_, i) => fakeServer(`s${i}`));
    const h = monitorHarness({ servers, settings: { workers: 10, intervalMs: MIN }, random: mulberry32(3) });
    for (const [i, s] of servers.entries()) h.prober.set(s.id, { answerMs: 100 + i });
    await h.monitor.start();
    h.monitor.trafficSeen();
    await h.clock.advance(S);
    const first = h.prober.calls.filter((c) => c.kind === 'probe').map((c) => c.at - h.t0);
    // The start cycle: 40 tests, 10 at a time, done in four rounds of about 100 ms.
    expect(Math.max(...first)).toBeLessThan(600);
    h.monitor.trafficSeen();
    await h.clock.advance(MIN + 16 * S);
    const scheduled = h.prober.calls.filter((c) => c.kind === 'probe' && c.at - h.t0 >= MIN);
    expect(scheduled).toHaveLength(40);
    const offsets = scheduled.map((c) => c.at - h.t0 - MIN);
    expect(Math.max(...offsets)).toBeLessThan(15 * S);
    expect(Math.max(...offsets) - Math.min(...offsets)).toBeGreaterThan(10 * S);
    // Never all at once: at most a handful of tests start in any one second.
    const perSecond = new Map<number, number>();
    for (const o of offsets) perSecond.set(Math.floor(o / S), (perSecond.get(Math.floor(o / S)) ?? 0) + 1);
    expect(Math.max(...perSecond.values())).toBeLessThanOrEqual(8);
    // The order still goes fastest first.
    expect(scheduled.map((c) => c.serverId)).toEqual(servers.map((s) => s.id));
    expect(h.monitoringLines().some((l) => l.includes('(interval): testing 40 server(s), 10 at a time, spread over 15 s'))).toBe(true);
  });

  it('runs `workers` tests at a time', async () => {
    const servers = Array.from({ length: 25 }, (_, i) => fakeServer(`s${i}`));
    const h = monitorHarness({ servers, settings: { workers: 10 } });
    for (const s of servers) h.prober.set(s.id, { answerMs: 1000 });
    await h.monitor.start();
    await h.clock.advance(3 * S);
    expect(h.prober.maxInFlight).toBe(10);
    expect(h.prober.probeCount()).toBe(25);
    expect(h.monitor.snapshot().every((s) => s.delayMs === 1000)).toBe(true);
  });

  it('stops testing after idle_timeout without traffic (no probes at all), and the next traffic restarts it', async () => {
    const h = monitorHarness({ settings: { intervalMs: 5 * MIN, idleTimeoutMs: 10 * MIN } });
    await h.monitor.start();
    await h.clock.advance(4 * MIN);
    h.monitor.trafficSeen();
    await h.clock.advance(10 * MIN + S);
    expect(h.monitor.isActive()).toBe(false);
    const before = h.prober.probeCount();
    expect(h.probeTimes('a')).toEqual([0, 5 * MIN, 10 * MIN]);
    await h.clock.advance(60 * MIN);
    expect(h.prober.probeCount()).toBe(before);
    expect(h.clock.pendingCount()).toBe(0);
    expect(h.monitoringLines().some((l) => l.includes('no traffic for 600 s'))).toBe(true);
    h.monitor.trafficSeen();
    await h.clock.advance(S);
    expect(h.probeTimes('a').at(-1)).toBe(74 * MIN + S);
    expect(h.monitor.isActive()).toBe(true);
  });

  it('skips a server not ready and retries it 3 s later; after 10 tries it is tested anyway', async () => {
    const h = monitorHarness({ servers: [fakeServer('a'), fakeServer('slow'), fakeServer('late')] });
    h.prober.setReady('slow', { ready: false, reason: 'still connecting' });
    h.prober.setReady('late', { ready: false, reason: 'still connecting' });
    await h.monitor.start();
    await h.clock.advance(7 * S);
    expect(h.monitor.status('slow')).toMatchObject({ notReady: 'still connecting', error: null, delayMs: null });
    h.prober.setReady('late', { ready: true });
    await h.clock.advance(40 * S);
    expect(h.probeTimes('late')).toEqual([9 * S]);
    expect(h.probeTimes('slow')).toEqual([30 * S]);
    const retries = h.monitoringLines().filter((l) => l.includes('server slow not ready'));
    expect(retries.map((l) => Number(l.split(' ')[0]))).toEqual([0, 3, 6, 9, 12, 15, 18, 21, 24, 27].map((s) => s * S));
    expect(h.monitoringLines().some((l) => l.includes('tested anyway after 10 not-ready tries'))).toBe(true);
    expect(h.monitor.status('slow').notReady).toBeNull();
  });

  it('tests a chained server only once the server it dials through has a result in this run', async () => {
    const h = monitorHarness({ servers: [fakeServer('hop', { via: 'entry' }), fakeServer('entry')], behaviours: { entry: { answerMs: 500 } } });
    await h.monitor.start();
    await h.clock.advance(S);
    expect(h.monitor.status('hop').notReady).toMatch(/dials through server entry, which has no result in this run yet/);
    await h.clock.advance(5 * S);
    expect(h.probeTimes('entry')).toEqual([0]);
    expect(h.probeTimes('hop')).toEqual([3 * S]);
  });

  it('retests servers chained through a server that works again after failing', async () => {
    const h = monitorHarness({ servers: [fakeServer('entry'), fakeServer('hop', { via: 'entry' }), fakeServer('other')] });
    h.prober.set('entry', { failMs: 100 });
    h.prober.set('hop', { failMs: 100 });
    await h.monitor.start();
    await h.clock.advance(10 * S);
    expect(h.monitor.status('entry').delayMs).toBeNull();
    h.prober.set('entry', { answerMs: 70 });
    h.prober.set('hop', { answerMs: 120 });
    const hopBefore = h.probeTimes('hop').length;
    const test = h.monitor.testNow(['entry'], 'user');
    await h.clock.advance(S);
    await test;
    expect(h.probeTimes('hop')).toHaveLength(hopBefore + 1);
    expect(h.monitor.status('hop').delayMs).toBe(120);
    expect(h.monitoringLines().some((l) => l.includes('works again after failing: retesting 1 server(s) chained through it'))).toBe(true);
  });

  it('counts a test that has not returned after 3 × url_test_timeout + 2 s as failed, and its worker moves on (17 s for 5 s)', async () => {
    const h = monitorHarness({ servers: [fakeServer('stuck'), fakeServer('b')], settings: { workers: 1, urlTestTimeoutMs: 5000 } });
    h.prober.set('stuck', { hang: true });
    await h.monitor.start();
    await h.clock.advance(16_999);
    expect(h.probeTimes('b')).toEqual([]);
    await h.clock.advance(1);
    expect(h.probeTimes('b')).toEqual([17 * S]);
    await h.clock.advance(S);
    expect(h.monitor.status('stuck').error).toEqual({ kind: 'timeout', message: 'the test did not return within 17 s and was abandoned' });
    expect(h.monitor.status('b').delayMs).toBe(100);
  });

  it('retests every server 2 s after the last network change', async () => {
    const h = monitorHarness();
    await h.monitor.start();
    await h.clock.advance(10 * S);
    h.monitor.networkChanged();
    await h.clock.advance(S);
    h.monitor.networkChanged();
    await h.clock.advance(1500);
    h.monitor.networkChanged();
    await h.clock.advance(1999);
    expect(h.prober.probeCount()).toBe(3);
    await h.clock.advance(1);
    expect(h.probeTimes('a')).toEqual([0, 14_500]);
    expect(h.probeTimes('b')).toEqual([0, 14_500]);
    expect(h.probeTimes('c')).toEqual([0, 14_500]);
  });

  it('reruns a test cut by a network change once it settles', async () => {
    const h = monitorHarness({ behaviours: { a: { answerMs: 1000 } } });
    await h.monitor.start();
    await h.clock.advance(60 * S);
    const test = h.monitor.testNow(['a'], 'user');
    await h.clock.advance(500);
    h.monitor.networkChanged();
    await h.clock.advance(4 * S);
    const [status] = await test;
    // Cut at 60.5 s; rerun at 62.5 s (the retest of all joins it: one probe); answered at 63.5 s.
    expect(h.probeTimes('a')).toEqual([0, 60 * S, 62_500]);
    expect(status).toMatchObject({ delayMs: 1000, testedAt: h.t0 + 63_500 });
    expect(h.monitor.status('a').recent.filter((m) => m.at > h.t0 + 1000)).toHaveLength(1);
  });

  it('repeats a cycle with no successful test with the next URL, and keeps the URL that worked', async () => {
    const urls = ['http://127.0.0.1:1/u1', 'http://127.0.0.1:1/u2', 'http://127.0.0.1:1/u3'];
    const h = monitorHarness({ settings: { urls } });
    h.prober.deadUrls.add(urls[0] as string);
    await h.monitor.start();
    await h.clock.advance(S);
    const probeUrls = () => h.prober.calls.filter((c) => c.kind === 'probe').map((c) => c.url);
    expect(probeUrls()).toEqual([urls[0], urls[0], urls[0], urls[1], urls[1], urls[1]]);
    // The failures with the dead URL were never recorded.
    expect(h.monitor.snapshot().map((s) => [s.delayMs, s.recent.length])).toEqual([[100, 1], [100, 1], [100, 1]]);
    await h.clock.advance(5 * MIN);
    expect(probeUrls().slice(6)).toEqual([urls[1], urls[1], urls[1]]);
    expect(h.monitoringLines().some((l) => l.includes(`no test succeeded with ${urls[0]}: repeating with ${urls[1]}`))).toBe(true);
  });

  it('records the failures when the URL list ends without a success, and goes back to the first URL', async () => {
    const urls = ['http://127.0.0.1:1/u1', 'http://127.0.0.1:1/u2'];
    const h = monitorHarness({ servers: [fakeServer('a')], settings: { urls } });
    h.prober.set('a', { failMs: 20, kind: 'handshake', message: 'handshake rejected' });
    await h.monitor.start();
    await h.clock.advance(S);
    expect(h.prober.calls.map((c) => c.url)).toEqual(urls);
    expect(h.monitor.status('a').error).toEqual({ kind: 'handshake', message: 'handshake rejected' });
    await h.clock.advance(5 * MIN);
    expect(h.prober.calls.map((c) => c.url)).toEqual([...urls, ...urls]);
    expect(h.probeTimes('a')).toEqual([0, 20, 5 * MIN, 5 * MIN + 20]);
  });
});
