import { describe, expect, it } from 'vitest';
import { DEFAULT_IP_INFO_URLS, type IpInfoService } from '../../../shared/settings';
import type { FetchThroughResult } from '../ports';
import { ipInfoPlan } from '../policy/ipinfo-order';
import * as f from './fixtures/answers';
import { lookupIpInfo } from './lookup';

const OK_BODY: Record<IpInfoService, string> = {
  'ipapi.co': f.IPAPI_CO,
  'ip-api.com': f.IP_API_COM.replace('3.80.12.7', '95.217.10.20'),
  'ipinfo.io': f.IPINFO_IO.replace('3.80.12.7', '95.217.10.20'),
  'api.ip.sb': f.IP_SB,
  'ipwho.is': f.IPWHO_IS,
  'api.country.is': f.COUNTRY_IS,
  'api.my-ip.io': f.MY_IP_IO,
  'cloudflare-trace': f.CLOUDFLARE_TRACE,
};

const serviceOf = (url: string) => (Object.entries(DEFAULT_IP_INFO_URLS).find(([, u]) => u === url)?.[0] ?? 'custom') as IpInfoService | 'custom';

/** Services answer from a table: 'ok', '429', 'timeout'; records the order asked. */
function world(modes: Partial<Record<IpInfoService | 'custom', 'ok' | '429' | 'timeout' | 'html'>>, fallbackMode: 'ok' | '429' = 'ok') {
  const asked: string[] = [];
  const fetch = async (url: string): Promise<FetchThroughResult> => {
    const service = serviceOf(url);
    asked.push(service);
    const mode = modes[service] ?? fallbackMode;
    if (mode === 'timeout') return { ok: false, error: { kind: 'timeout', message: 'no answer within 5000 ms' }, elapsedMs: 5000 };
    if (mode === '429') return { ok: true, status: 429, body: Buffer.from('Too Many Requests'), headersMs: 40, elapsedMs: 41 };
    if (mode === 'html') return { ok: true, status: 200, body: Buffer.from('<html>portal</html>'), headersMs: 40, elapsedMs: 41 };
    const body = service === 'custom' ? f.IPAPI_CO : OK_BODY[service];
    return { ok: true, status: 200, body: Buffer.from(body), headersMs: 30, elapsedMs: 32 };
  };
  return { asked, fetch };
}

const ALL_429 = Object.fromEntries(Object.keys(DEFAULT_IP_INFO_URLS).map((s) => [s, '429'])) as Record<IpInfoService, '429'>;

describe('IP-info lookup through a server', () => {
  it('asks ipinfo_url first and stops at the first answer', async () => {
    const w = world({});
    const result = await lookupIpInfo(ipInfoPlan('http://mine.test/json', DEFAULT_IP_INFO_URLS, 0.5), w.fetch);
    expect(w.asked).toEqual(['custom']);
    expect(result.info).toMatchObject({ ip: '95.217.10.20', countryCode: 'FI', source: 'ipinfo_url' });
    expect(result.answerMs).toBe(30);
  });

  it('falls through the seven from the random start when the custom URL fails', async () => {
    const w = world({ custom: 'timeout', 'ipwho.is': '429', 'api.country.is': 'html' });
    const result = await lookupIpInfo(ipInfoPlan('http://mine.test/json', DEFAULT_IP_INFO_URLS, 4 / 7 + 0.01), w.fetch);
    expect(w.asked).toEqual(['custom', 'ipwho.is', 'api.country.is', 'api.my-ip.io']);
    expect(result.info?.source).toBe('api.my-ip.io');
    expect(result.attempts.map((a) => a.result)).toEqual(['timeout: no answer within 5000 ms', 'rate limited (HTTP 429)', 'the answer is not JSON', 'ok']);
  });

  it.each(['ipapi.co', 'ip-api.com', 'ipinfo.io', 'api.ip.sb', 'ipwho.is', 'api.country.is', 'api.my-ip.io'] as const)(
    'finds the info when every service but %s answers 429',
    async (service) => {
      const w = world({ ...ALL_429, [service]: 'ok' });
      const result = await lookupIpInfo(ipInfoPlan('', DEFAULT_IP_INFO_URLS, 0.99), w.fetch);
      expect(result.info).toMatchObject({ ip: '95.217.10.20', source: service });
      expect(result.info?.countryCode).toMatch(/^[A-Z]{2}$/);
    },
  );

  it('with all seven failing, asks the Cloudflare trace with country.is and my-ip.io together: IP and country', async () => {
    const w = world({ ...ALL_429, 'cloudflare-trace': 'ok' });
    const result = await lookupIpInfo(ipInfoPlan('', DEFAULT_IP_INFO_URLS, 0), w.fetch);
    expect(w.asked).toEqual(['ipapi.co', 'ip-api.com', 'ipinfo.io', 'api.ip.sb', 'ipwho.is', 'api.country.is', 'api.my-ip.io', 'cloudflare-trace', 'api.country.is', 'api.my-ip.io']);
    expect(result.info).toEqual({ ip: '95.217.10.20', countryCode: 'FI', source: 'cloudflare-trace' });
  });

  it('combines the fallback trio: the trace\'s address with a country from another of them', async () => {
    let countryIsCalls = 0;
    const fetch = async (url: string): Promise<FetchThroughResult> => {
      const service = serviceOf(url);
      if (service === 'cloudflare-trace') return { ok: true, status: 200, body: Buffer.from('ip=95.217.10.20\nloc=XX\n'), headersMs: 20, elapsedMs: 20 };
      if (service === 'api.country.is' && ++countryIsCalls === 2) return { ok: true, status: 200, body: Buffer.from(f.COUNTRY_IS), headersMs: 25, elapsedMs: 25 };
      return { ok: true, status: 429, body: Buffer.from(''), headersMs: 5, elapsedMs: 5 };
    };
    const result = await lookupIpInfo(ipInfoPlan('', DEFAULT_IP_INFO_URLS, 0), fetch);
    expect(result.info).toEqual({ ip: '95.217.10.20', countryCode: 'FI', source: 'cloudflare-trace+api.country.is' });
    expect(result.answerMs).toBe(20);
  });

  it('reports nothing found when even the fallback fails', async () => {
    const w = world(ALL_429);
    const result = await lookupIpInfo(ipInfoPlan('', DEFAULT_IP_INFO_URLS, 0), w.fetch);
    expect(result.info).toBeNull();
    expect(result.attempts).toHaveLength(10);
  });
});
