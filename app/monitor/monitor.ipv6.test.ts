/**
 * verify_ipv6 and ipv6_declared (spec/monitor.md), on the fake clock: after a server's successful
 * URL test, once a run, the test URL is fetched once more via its host's IPv6 address through
 * the server; a declared server is never verified; no AAAA is "unknown", never a guess.
 */
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FakeClock } from '../testing/fake-clock';
import { monitorCacheFile } from './cache';
import type { Ipv6Lookup, Ipv6Resolver } from './ipv6/resolver';
import type { FakeFetchAnswer } from './testing/fake-prober';
import { fakeServer, type HarnessOptions, monitorHarness } from './testing/harness';

const S = 1000;
const MIN = 60 * S;
const V6 = '2001:db8::1';
const V6_URL = `https://[${V6}]/generate_204`;

/** A resolver answering every host alike, counting what it was asked. */
function resolver(answer: Ipv6Lookup = { address: V6 }) {
  const asked: string[] = [];
  const resolve: Ipv6Resolver = async (host) => {
    asked.push(host);
    return answer;
  };
  return { resolve, asked };
}

function harness(options: HarnessOptions & { v6?: FakeFetchAnswer; answer?: Ipv6Lookup } = {}) {
  const dns = resolver(options.answer);
  const h = monitorHarness({ ...options, settings: { verifyIpv6: true, ...options.settings }, extra: { resolveIpv6: dns.resolve, ...options.extra } });
  // IP-info services are not the subject here: they fail; the IPv6 URL answers as the test says.
  h.prober.fetchHandler = (_id, url) => (url.startsWith(`https://[${V6}]`) ? (options.v6 ?? { status: 204, body: '', afterMs: 80 }) : { fail: 'refused' });
  const v6Fetches = () => h.prober.calls.filter((c) => c.kind === 'fetch' && c.url?.startsWith(`https://[${V6}]`));
  return { ...h, dns, v6Fetches };
}

describe('verify_ipv6: the IPv6 check through each server', () => {
  it('after the first successful URL test, fetches the test URL via the host\'s IPv6 address with the original Host, once a run', async () => {
    const h = harness({ servers: [fakeServer('a')], settings: { idleTimeoutMs: 60 * MIN } });
    await h.monitor.start();
    await h.clock.advance(2 * S);
    expect(h.v6Fetches().map((c) => [c.serverId, c.url, c.hostHeader, c.at - h.t0, c.timeoutMs])).toEqual([['a', V6_URL, 'www.gstatic.com', 100, 5000]]);
    expect(h.dns.asked).toEqual(['www.gstatic.com']);
    expect(h.monitor.status('a').ipv6).toEqual({ supported: true, source: 'verified', detail: `answered HTTP 204 via ${V6} in 80 ms`, at: h.t0 + 180, fromCache: false });
    expect(h.monitoringLines()).toContain(`180 IPv6 check of server a: supported, answered HTTP 204 via ${V6} in 80 ms (${V6_URL}, Host www.gstatic.com)`);

    // Three more cycles test the server again; the check is not repeated in this run.
    await h.clock.advance(16 * MIN);
    expect(h.probeTimes('a').length).toBeGreaterThanOrEqual(4);
    expect(h.v6Fetches()).toHaveLength(1);
    expect(h.dns.asked).toHaveLength(1);
  });

  it('a server that does not carry IPv6 is refused, with the reason', async () => {
    const h = harness({ servers: [fakeServer('a')], v6: { fail: 'network', message: 'the server closed the connection without answering', afterMs: 1200 } });
    await h.monitor.start();
    await h.clock.advance(3 * S);
    expect(h.monitor.status('a').ipv6).toMatchObject({ supported: false, source: 'verified', detail: `no answer via ${V6}: the connection failed (the server closed the connection without answering)` });
    expect(h.monitoringLines().some((l) => l.includes('IPv6 check of server a: refused, no answer via'))).toBe(true);
  });

  it('a failed URL test starts no check; the first answer does', async () => {
    const h = harness({ servers: [fakeServer('a')] });
    h.prober.queue('a', { failMs: 50, kind: 'refused' });
    await h.monitor.start();
    await h.clock.advance(2 * S);
    expect(h.v6Fetches()).toHaveLength(0);
    expect(h.monitor.status('a').ipv6).toBeNull();
    void h.monitor.testNow(['a'], 'user');
    await h.clock.advance(S);
    expect(h.v6Fetches()).toHaveLength(1);
    expect(h.monitor.status('a').ipv6?.supported).toBe(true);
  });

  it('with verify_ipv6 off (the default) nothing is checked and nothing is known', async () => {
    const h = harness({ servers: [fakeServer('a')], settings: { verifyIpv6: false } });
    await h.monitor.start();
    await h.clock.advance(10 * S);
    expect(h.dns.asked).toEqual([]);
    expect(h.v6Fetches()).toHaveLength(0);
    expect(h.monitor.status('a').ipv6).toBeNull();
  });

  it('a host without an IPv6 address (no AAAA) is unknown, and nothing is fetched through the server', async () => {
    const h = harness({ servers: [fakeServer('a')], answer: { address: null, reason: 'www.gstatic.com has no IPv6 address (AAAA)' } });
    await h.monitor.start();
    await h.clock.advance(2 * S);
    expect(h.v6Fetches()).toHaveLength(0);
    expect(h.monitor.status('a').ipv6).toMatchObject({ supported: null, source: 'verified', detail: 'www.gstatic.com has no IPv6 address (AAAA)' });
    expect(h.monitoringLines().some((l) => l.endsWith('IPv6 check of server a: unknown, www.gstatic.com has no IPv6 address (AAAA)'))).toBe(true);
    await h.clock.advance(6 * MIN);
    expect(h.dns.asked).toHaveLength(1); // once a run, whatever it said
  });

  it('a test URL that names an IPv4 address has no IPv6 address to try: unknown, without asking the resolver', async () => {
    const h = harness({ servers: [fakeServer('a')], settings: { urls: ['http://127.0.0.1:9/generate_204'] } });
    await h.monitor.start();
    await h.clock.advance(2 * S);
    expect(h.dns.asked).toEqual([]);
    expect(h.monitor.status('a').ipv6).toMatchObject({ supported: null, detail: 'the test URL names an IPv4 address (127.0.0.1), which has no IPv6 address to try' });
  });

  it('a resolver that never answers leaves the check unknown after url_test_timeout', async () => {
    const h = monitorHarness({ servers: [fakeServer('a')], settings: { verifyIpv6: true, urlTestTimeoutMs: 2000 }, extra: { resolveIpv6: () => new Promise(() => undefined) } });
    await h.monitor.start();
    await h.clock.advance(3 * S);
    expect(h.monitor.status('a').ipv6).toMatchObject({ supported: null, detail: 'the IPv6 address of www.gstatic.com was not found within 2 s' });
  });

  it('a server that stops answering its URL tests during the check is unknown, not refused', async () => {
    const h = harness({ servers: [fakeServer('a')], v6: { fail: 'timeout', message: 'no answer within 5000 ms', afterMs: 5000 } });
    await h.monitor.start();
    await h.clock.advance(S); // URL test answered at 100 ms; the IPv6 fetch is in flight
    h.prober.set('a', { failMs: 200, kind: 'timeout', message: 'no answer' });
    void h.monitor.testNow(['a'], 'user');
    await h.clock.advance(6 * S);
    expect(h.monitor.status('a').ipv6).toMatchObject({ supported: null, detail: 'the server stopped answering during the check (no answer within 5000 ms)' });
  });

  it('a check cut by stop() records nothing, and the next run checks again', async () => {
    const h = harness({ servers: [fakeServer('a')], v6: { status: 204, body: '', afterMs: 3000 } });
    await h.monitor.start();
    await h.clock.advance(S);
    await h.monitor.stop();
    await h.clock.advance(5 * S);
    expect(h.monitor.status('a').ipv6).toBeNull();
    await h.monitor.start();
    void h.monitor.testNow(['a'], 'user');
    await h.clock.advance(5 * S);
    expect(h.v6Fetches()).toHaveLength(2);
    expect(h.monitor.status('a').ipv6?.supported).toBe(true);
  });
});

describe('ipv6_declared: servers whose subscription declares their IPv6 support', () => {
  it('are known from the start, are never verified, and the others are', async () => {
    const servers = [fakeServer('yes', { ipv6: true }), fakeServer('no', { ipv6: false }), fakeServer('open')];
    const h = harness({ servers });
    expect(h.monitor.snapshot().map((s) => [s.serverId, s.ipv6?.supported, s.ipv6?.source])).toEqual([
      ['yes', true, 'declared'],
      ['no', false, 'declared'],
      ['open', undefined, undefined],
    ]);
    await h.monitor.start();
    await h.clock.advance(2 * S);
    expect(h.v6Fetches().map((c) => c.serverId)).toEqual(['open']);
    expect(h.monitor.status('no').ipv6).toEqual({ supported: false, source: 'declared', detail: 'the subscription declares no IPv6 support (ipv6=0)', at: null, fromCache: false });
    expect(h.monitor.status('open').ipv6).toMatchObject({ supported: true, source: 'verified' });
  });

  it('are shown even with verify_ipv6 off', () => {
    const h = harness({ servers: [fakeServer('yes', { ipv6: true })], settings: { verifyIpv6: false } });
    expect(h.monitor.status('yes').ipv6).toMatchObject({ supported: true, source: 'declared' });
  });
});

describe('the IPv6 result persists like IP info', () => {
  it('is shown from cache after a restart, until the server is verified again in this run', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'monitor-ipv6-'));
    const first = harness({ servers: [fakeServer('a'), fakeServer('b')], cacheFile: monitorCacheFile(dir) });
    await first.monitor.start();
    await first.clock.advance(5 * S);
    await first.monitor.stop();
    expect(first.monitor.status('a').ipv6?.supported).toBe(true);

    const clock = new FakeClock(first.clock.now() + 3600_000);
    const second = harness({
      clock,
      servers: [fakeServer('a'), fakeServer('b')],
      cacheFile: monitorCacheFile(dir),
      v6: { fail: 'refused', message: 'the server refused the connection', afterMs: 40 },
      behaviours: { b: { failMs: 30, kind: 'timeout' } },
    });
    await second.monitor.start();
    expect(second.monitor.snapshot().map((s) => [s.serverId, s.ipv6?.supported, s.ipv6?.source, s.ipv6?.fromCache])).toEqual([
      ['a', true, 'verified', true],
      ['b', true, 'verified', true],
    ]);
    await second.clock.advance(2 * S);
    // a answered and was verified again (now refused); b failed its tests and keeps last run's result, from cache.
    expect(second.monitor.status('a').ipv6).toMatchObject({ supported: false, fromCache: false, at: clock.now() - 2 * S + 140 });
    expect(second.monitor.status('b').ipv6).toMatchObject({ supported: true, fromCache: true });
    await second.monitor.stop();
  });

  it('a declaration wins over a cached verification', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'monitor-ipv6-'));
    const first = harness({ servers: [fakeServer('a')], cacheFile: monitorCacheFile(dir) });
    await first.monitor.start();
    await first.clock.advance(5 * S);
    await first.monitor.stop();
    const second = harness({ clock: new FakeClock(first.clock.now() + MIN), servers: [fakeServer('a', { ipv6: false })], cacheFile: monitorCacheFile(dir) });
    await second.monitor.start();
    expect(second.monitor.status('a').ipv6).toMatchObject({ supported: false, source: 'declared' });
    await second.clock.advance(5 * S);
    expect(second.v6Fetches()).toHaveLength(0);
    await second.monitor.stop();
  });
});
