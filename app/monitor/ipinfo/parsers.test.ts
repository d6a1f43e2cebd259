import { describe, expect, it } from 'vitest';
import type { IpInfoSource } from '../policy/ipinfo-order';
import * as f from './fixtures/answers';
import { parseIpInfoAnswer } from './parsers';

const HELSINKI = { ip: '95.217.10.20', countryCode: 'FI', country: 'Finland', region: 'Uusimaa', city: 'Helsinki', asn: 'AS24940', org: 'Hetzner Online GmbH' };
const ASHBURN = { ip: '3.80.12.7', countryCode: 'US', region: 'Virginia', city: 'Ashburn', asn: 'AS16509' };

describe('IP-info parsers, one per real format', () => {
  const cases: [IpInfoSource, string, object][] = [
    ['ipapi.co', f.IPAPI_CO, { ...HELSINKI, source: 'ipapi.co' }],
    ['custom', f.IPAPI_CO, { ...HELSINKI, source: 'ipinfo_url' }],
    ['ip-api.com', f.IP_API_COM, { ...ASHBURN, country: 'United States', org: 'AWS EC2 (us-east-1)', source: 'ip-api.com' }],
    ['ipinfo.io', f.IPINFO_IO, { ...ASHBURN, org: 'Amazon.com, Inc.', source: 'ipinfo.io' }],
    ['api.ip.sb', f.IP_SB, { ...HELSINKI, source: 'api.ip.sb' }],
    ['ipwho.is', f.IPWHO_IS, { ...HELSINKI, source: 'ipwho.is' }],
    ['api.country.is', f.COUNTRY_IS, { ip: '95.217.10.20', countryCode: 'FI', source: 'api.country.is' }],
    ['api.my-ip.io', f.MY_IP_IO, { ...HELSINKI, source: 'api.my-ip.io' }],
    ['cloudflare-trace', f.CLOUDFLARE_TRACE, { ip: '95.217.10.20', countryCode: 'FI', source: 'cloudflare-trace' }],
  ];
  it.each(cases)('%s', (source, body, expected) => {
    expect(parseIpInfoAnswer(source, 200, body)).toEqual({ ok: true, info: expected });
  });

  it('moves on from rate limits, in each service\'s way of saying it', () => {
    expect(parseIpInfoAnswer('ipapi.co', 429, f.IPAPI_CO_RATE_LIMITED)).toEqual({ ok: false, reason: 'rate limited (HTTP 429)' });
    expect(parseIpInfoAnswer('ipapi.co', 200, f.IPAPI_CO_RATE_LIMITED)).toMatchObject({ ok: false, reason: 'error: RateLimited' });
    expect(parseIpInfoAnswer('ipwho.is', 200, f.IPWHO_IS_LIMIT)).toMatchObject({ ok: false, reason: "success false: You've hit the monthly limit" });
    expect(parseIpInfoAnswer('ip-api.com', 200, f.IP_API_COM_FAIL)).toMatchObject({ ok: false });
    expect(parseIpInfoAnswer('api.my-ip.io', 200, '{"success":false,"error":"Too many requests"}')).toMatchObject({ ok: false });
    expect(parseIpInfoAnswer('cloudflare-trace', 429, 'error code: 1015')).toMatchObject({ ok: false });
  });

  it('moves on from answers that are not the format (an HTML captive portal, an error page)', () => {
    expect(parseIpInfoAnswer('ipinfo.io', 200, '<html><body>Login to Wi-Fi</body></html>')).toEqual({ ok: false, reason: 'the answer is not JSON' });
    expect(parseIpInfoAnswer('ipapi.co', 200, '[1,2]')).toMatchObject({ ok: false });
    expect(parseIpInfoAnswer('ipapi.co', 200, '{"ip":"not an address"}')).toEqual({ ok: false, reason: 'no ip field' });
    expect(parseIpInfoAnswer('api.ip.sb', 502, 'Bad gateway')).toEqual({ ok: false, reason: 'HTTP 502' });
    expect(parseIpInfoAnswer('cloudflare-trace', 200, 'hello')).toMatchObject({ ok: false });
  });

  it('keeps IPv6 exits and drops non-country codes', () => {
    const trace = 'ip=2a01:4f9:c010:1234::1\nloc=XX\n';
    expect(parseIpInfoAnswer('cloudflare-trace', 200, trace)).toEqual({ ok: true, info: { ip: '2a01:4f9:c010:1234::1', source: 'cloudflare-trace' } });
  });
});
