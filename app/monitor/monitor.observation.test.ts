import type { IcmpResult } from './icmp';
import { describe, expect, it } from 'vitest';
import { fakeServer, monitorHarness } from './testing/harness';

const S = 1000;
const MIN = 60 * S;

describe('observation, statistics, methods and throughput', () => {
  it('exports every server\'s status and observatory statistics as JSON', async () => {
    const h = monitorHarness({ servers: [fakeServer('a', { name: 'Finland 1' })], settings: { intervalMs: MIN } });
    h.prober.queue('a', { answerMs: 100 }, { answerMs: 300 }, { failMs: 50 }, { answerMs: 200 });
    await h.monitor.start();
    for (let i = 0; i < 4; i++) {
      h.monitor.trafficSeen();
      await h.clock.advance(MIN);
    }
    const observation = JSON.parse(JSON.stringify(h.monitor.exportObservation())) as ReturnType<typeof h.monitor.exportObservation>;
    expect(observation.servers).toHaveLength(1);
    expect(observation.servers[0]).toMatchObject({
      serverId: 'a',
      name: 'Finland 1',
      subscriptionId: 'A',
      delayMs: 200,
      statistics: { count: 4, failures: 1, averageMs: 200, deviationMs: 81.6, minMs: 100, maxMs: 300 },
    });
    expect(observation.batch).toEqual({ confirmedFailures: 0, overturnedFailures: 0 });
    // The observatory's own fields (seed 002, Xray's OutboundStatus), times in Unix seconds.
    const lastTry = h.monitor.status('a').testedAt!;
    expect(observation.servers[0]).toMatchObject({ alive: true, delay: 200, lastErrorReason: '', lastSeenTime: Math.floor(lastTry / 1000), lastTryTime: Math.floor(lastTry / 1000) });
    expect(h.monitor.history('a').map((m) => m.delayMs)).toEqual([100, 300, null, 200]);
  });

  it('exports a failed server as the observatory does: not alive, delay 99,999,999, seen when it last answered', async () => {
    const h = monitorHarness({ servers: [fakeServer('a')], settings: { intervalMs: MIN } });
    h.prober.queue('a', { answerMs: 100 }, { failMs: 50, kind: 'refused', message: 'connection refused' });
    await h.monitor.start();
    h.monitor.trafficSeen();
    await h.clock.advance(S);
    const answeredAt = h.monitor.status('a').testedAt!;
    h.monitor.trafficSeen();
    await h.clock.advance(MIN);
    const failedAt = h.monitor.status('a').testedAt!;
    expect(failedAt).toBeGreaterThan(answeredAt);
    expect(h.monitor.exportObservation().servers[0]).toMatchObject({
      alive: false,
      delay: 99_999_999,
      lastErrorReason: 'connection refused',
      lastSeenTime: Math.floor(answeredAt / 1000),
      lastTryTime: Math.floor(failedAt / 1000),
    });
    const never = monitorHarness({ servers: [fakeServer('b')] });
    expect(never.monitor.exportObservation().servers[0]).toMatchObject({ alive: false, delay: 99_999_999, lastSeenTime: null, lastTryTime: null });
  });

  it('keeps the last 5 measurements in total for Auto and a long ring of URL results for the chart', async () => {
    const h = monitorHarness({ servers: [fakeServer('a')] });
    h.monitor.record('a', { at: h.t0, method: 'tcp', delayMs: 500 });
    for (let i = 0; i < 4; i++) h.monitor.record('a', { at: h.t0 + 1 + i, method: 'url', delayMs: 40 + 10 * i });
    h.monitor.record('a', { at: h.t0 + 10, method: 'tcp', delayMs: 700 });
    const recent = h.monitor.status('a').recent;
    expect(recent.map((m) => `${m.method}=${m.delayMs}`)).toEqual(['url=40', 'url=50', 'url=60', 'url=70', 'tcp=700']);
    expect(h.monitor.history('a')).toHaveLength(4);
    for (let i = 0; i < 250; i++) h.monitor.record('a', { at: h.t0 + 100 + i, method: 'url', delayMs: i });
    expect(h.monitor.history('a')).toHaveLength(200);
    expect(h.monitor.status('a').recent).toHaveLength(5);
  });

  it('measures TCP straight to the address and ICMP through the system ping on request, records each as the latest of its method, or says why ICMP is unavailable', async () => {
    let icmpResult: IcmpResult = { ok: true, delayMs: 12.5 };
    const h = monitorHarness({ servers: [fakeServer('a')], behaviours: { a: { answerMs: 90 } }, extra: { icmp: async () => icmpResult } });
    const tcp = h.monitor.measureDirect('a', 'tcp');
    await h.clock.advance(S);
    expect(await tcp).toMatchObject({ method: 'tcp', available: true, measurement: { method: 'tcp', delayMs: 30 } });
    expect(h.prober.calls.filter((c) => c.kind === 'tcp').map((c) => c.serverId)).toEqual(['a']);
    expect(await h.monitor.measureDirect('a', 'icmp')).toMatchObject({ method: 'icmp', available: true, measurement: { method: 'icmp', delayMs: 12.5 } });
    icmpResult = { ok: false, unavailable: true, reason: 'the system ping is not permitted to send ICMP here' };
    expect(await h.monitor.measureDirect('a', 'icmp')).toEqual({ method: 'icmp', available: false, reason: 'the system ping is not permitted to send ICMP here' });
    expect(await h.monitor.measureDirect('nope', 'tcp')).toEqual({ method: 'tcp', available: false, reason: 'no such server' });
    expect(h.monitor.status('a').recent.map((m) => `${m.method}=${m.delayMs}`)).toEqual(['tcp=30', 'icmp=12.5']);
    expect(h.lines.filter((l) => /(TCP|ICMP) test of /.test(l))).toEqual([
      expect.stringMatching(/TCP test of .* \(on request\): 30 ms/),
      expect.stringMatching(/ICMP test of .* \(on request\): 13 ms/),
      expect.stringMatching(/ICMP test of .*: unavailable \(the system ping is not permitted/),
    ]);
  });

  it('measures throughput on request by downloading through the server', async () => {
    const h = monitorHarness({ servers: [fakeServer('a')], extra: { throughputUrl: (n) => `http://127.0.0.1:9/download?bytes=${n}` } });
    h.prober.fetchHandler = (_id, url) => {
      const bytes = Number(new URL(url).searchParams.get('bytes'));
      return { status: 200, body: Buffer.alloc(bytes), afterMs: 2000 };
    };
    const measured = h.monitor.measureThroughput('a', 1_000_000);
    await h.clock.advance(3 * S);
    const status = await measured;
    expect(status.throughputBps).toBe(500_000);
    // What was downloaded and when, so the details can say it beside the speed.
    expect(status.throughputTest).toEqual({ bytes: 1_000_000, at: h.clock.now() - S });
    expect(h.prober.calls.find((c) => c.kind === 'fetch')?.url).toBe('http://127.0.0.1:9/download?bytes=1000000');
    h.prober.fetchHandler = () => ({ fail: 'reset', message: 'connection reset' });
    const failing = h.monitor.measureThroughput('a', 1000).catch((error: Error) => error);
    await h.clock.advance(S);
    expect(((await failing) as Error).message).toMatch(/the download through server a failed: connection reset/);
    expect(h.monitor.status('a').throughputBps).toBe(500_000);
  });

  it('logs why each test runs', async () => {
    const h = monitorHarness({ servers: [fakeServer('a'), fakeServer('b', { via: 'a' })], selections: ['a'] });
    await h.monitor.start();
    await h.clock.advance(5 * S);
    h.monitor.networkChanged();
    await h.clock.advance(3 * S);
    const lines = h.monitoringLines().filter((l) => !l.includes('IP info'));
    expect(lines).toEqual([
      '0 cycle 1 (start): testing 2 server(s), 10 at a time, with https://www.gstatic.com/generate_204',
      '0 server b not ready (dials through server a, which is being retested): retry 1/10 in 3 s',
      '100 test server a (event: start): 100 ms',
      '3100 test server b (cycle 1): 100 ms',
      '5000 network changed: 0 test(s) in flight cut (rerun once it settles); all servers retested 2 s after the last change',
      '7000 cycle 2 (network change): testing 2 server(s), 10 at a time, with https://www.gstatic.com/generate_204',
      '7000 server b not ready (dials through server a, which is being retested): retry 1/10 in 3 s',
      '7100 test server a (cycle 2): 100 ms',
    ]);
  });
});
