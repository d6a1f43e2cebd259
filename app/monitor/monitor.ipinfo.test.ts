import { describe, expect, it } from 'vitest';
import { DEFAULT_IP_INFO_URLS } from '../../shared/settings';
import * as f from './ipinfo/fixtures/answers';
import { fakeServer, monitorHarness } from './testing/harness';

const S = 1000;

describe('IP info through each server', () => {
  it('publishes the delay as soon as the URL test answers; the IP info follows when the lookup finishes', async () => {
    const h = monitorHarness({ servers: [fakeServer('a')], behaviours: { a: { answerMs: 200 } }, selections: ['a'] });
    h.prober.fetchHandler = (_id, url) => (url === DEFAULT_IP_INFO_URLS['ipapi.co'] ? { status: 200, body: f.IPAPI_CO, afterMs: 900 } : { status: 429, body: '' });
    await h.monitor.start();
    await h.clock.advance(2 * S);
    const seen = h.updates.flatMap((u) => u.statuses.map((s) => `${u.at} ${s.delayMs} ${s.ipInfo?.countryCode ?? '-'}`));
    // Event test (start): delay at once at 200 ms; IP info at 1100 ms, also at once.
    expect(seen).toEqual(['200 200 -', '1100 200 FI']);
    expect(h.prober.calls.filter((c) => c.kind === 'fetch').map((c) => [c.serverId, c.url, c.at - h.t0, c.timeoutMs])).toEqual([
      ['a', DEFAULT_IP_INFO_URLS['ipapi.co'], 200, 5000],
    ]);
    expect(h.monitor.status('a').ipInfo).toMatchObject({ ip: '95.217.10.20', countryCode: 'FI', country: 'Finland', city: 'Helsinki', asn: 'AS24940', org: 'Hetzner Online GmbH', source: 'ipapi.co', fromCache: false });
  });

  it('uses the lookup\'s time as the delay when it is faster than the URL test', async () => {
    const h = monitorHarness({ servers: [fakeServer('a')], behaviours: { a: { answerMs: 1200 } } });
    h.prober.fetchHandler = () => ({ status: 200, body: f.IPAPI_CO, afterMs: 250 });
    await h.monitor.start();
    await h.clock.advance(3 * S);
    const status = h.monitor.status('a');
    expect(status.delayMs).toBe(250);
    expect(status.recent.map((m) => m.delayMs)).toEqual([250]);
    expect(h.monitoringLines().some((l) => l.includes('the lookup was faster than the URL test, delay now 250 ms'))).toBe(true);
  });

  it('asks ipinfo_url first, then the services from a random start, through the same server with url_test_timeout', async () => {
    const urls = { 'ipwho.is': 'http://127.0.0.1:9/ipwho', 'api.country.is': 'http://127.0.0.1:9/country' };
    const h = monitorHarness({
      servers: [fakeServer('a')],
      settings: { ipInfoUrl: 'http://127.0.0.1:9/mine', ipInfoUrls: urls, urlTestTimeoutMs: 3000 },
      random: () => 4 / 7 + 0.01,
    });
    h.prober.fetchHandler = (_id, url) =>
      url === urls['api.country.is'] ? { status: 200, body: f.COUNTRY_IS } : url === urls['ipwho.is'] ? { status: 200, body: f.IPWHO_IS_LIMIT } : { fail: 'timeout', afterMs: 3000 };
    await h.monitor.start();
    await h.clock.advance(10 * S);
    expect(h.prober.calls.filter((c) => c.kind === 'fetch').map((c) => [c.serverId, c.url, c.timeoutMs])).toEqual([
      ['a', 'http://127.0.0.1:9/mine', 3000],
      ['a', urls['ipwho.is'], 3000],
      ['a', urls['api.country.is'], 3000],
    ]);
    expect(h.monitor.status('a').ipInfo).toMatchObject({ ip: '95.217.10.20', countryCode: 'FI', source: 'api.country.is' });
  });

  it('abandons a lookup request that hangs past the guard and moves on', async () => {
    const h = monitorHarness({ servers: [fakeServer('a')], settings: { urlTestTimeoutMs: 1000 } });
    let n = 0;
    h.prober.fetchHandler = () => (n++ === 0 ? { status: 200, body: '', afterMs: 10_000_000 } : { status: 200, body: f.IPAPI_CO });
    await h.monitor.start();
    await h.clock.advance(10 * S);
    expect(h.monitor.status('a').ipInfo?.countryCode).toBe('FI');
  });
});
