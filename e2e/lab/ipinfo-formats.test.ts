import { describe, expect, it } from 'vitest';
import { HOME, PLACES, type Place } from './geo';
import { isRateLimited, readIpInfo } from './ipinfo-check';
import { LAB_IP_INFO_SERVICES, okReply, rateLimitedReply } from './ipinfo-formats';

const FI = PLACES.find((p) => p.code === 'FI') as Place;
const caller = { ip: '127.0.0.17', place: FI, userAgent: 'probe/1', nowMs: 1_700_000_000_000 };
const body = (service: (typeof LAB_IP_INFO_SERVICES)[number]) => okReply(service, caller).body;

describe('IP-info stand-ins', () => {
  it.each(LAB_IP_INFO_SERVICES)('%s answers in its format with the caller address and country', (service) => {
    const reply = okReply(service, caller);
    expect(reply.status).toBe(200);
    expect(readIpInfo(service, reply.body)).toEqual({ ip: '127.0.0.17', country: 'FI' });
  });

  it('ipapi.co: the fields and types the real service sends', () => {
    const j = JSON.parse(body('ipapi.co'));
    expect(j).toMatchObject({ ip: '127.0.0.17', network: '127.0.0.0/24', version: 'IPv4', city: 'Helsinki', country: 'FI', country_name: 'Finland', country_code: 'FI', country_code_iso3: 'FIN', continent_code: 'EU', in_eu: true, timezone: 'Europe/Helsinki', utc_offset: '+0200', asn: 'AS24940', org: 'Hetzner Online GmbH' });
    for (const key of ['region', 'region_code', 'postal']) expect(typeof j[key]).toBe('string');
    expect(typeof j.latitude).toBe('number');
  });

  it('ip-api.com: status, "as" as "AS<n> <org>", query = the address, rate headers', () => {
    const reply = okReply('ip-api.com', caller);
    expect(JSON.parse(reply.body)).toMatchObject({ status: 'success', country: 'Finland', countryCode: 'FI', regionName: 'Uusimaa', as: 'AS24940 Hetzner Online GmbH', query: '127.0.0.17' });
    expect(reply.headers['x-rl']).toBeDefined();
  });

  it('ipinfo.io: loc as "lat,lon" and org with the AS number', () => {
    expect(JSON.parse(body('ipinfo.io'))).toMatchObject({ country: 'FI', loc: '60.1699,24.9384', org: 'AS24940 Hetzner Online GmbH', readme: 'https://ipinfo.io/missingauth' });
  });

  it('api.ip.sb: numeric asn and offset in seconds, country as a name', () => {
    expect(JSON.parse(body('api.ip.sb'))).toMatchObject({ asn: 24940, offset: 7200, country: 'Finland', country_code: 'FI', asn_organization: 'Hetzner Online GmbH' });
  });

  it('ipwho.is: nested flag, connection and timezone', () => {
    const j = JSON.parse(body('ipwho.is'));
    expect(j).toMatchObject({ success: true, type: 'IPv4', continent: 'Europe', is_eu: true, calling_code: '358', borders: 'NO,RU,SE' });
    expect(j.flag).toMatchObject({ emoji: '🇫🇮', emoji_unicode: 'U+1F1EB U+1F1EE' });
    expect(j.connection).toEqual({ asn: 24940, org: 'Hetzner Online GmbH', isp: 'Hetzner Online GmbH', domain: 'hetzner.com' });
    expect(j.timezone).toMatchObject({ id: 'Europe/Helsinki', is_dst: false, offset: 7200, utc: '+02:00' });
  });

  it('api.country.is: exactly ip and country', () => {
    expect(JSON.parse(body('api.country.is'))).toEqual({ ip: '127.0.0.17', country: 'FI' });
  });

  it('api.my-ip.io: nested country, location and asn', () => {
    expect(JSON.parse(body('api.my-ip.io'))).toMatchObject({ success: true, type: 'IPv4', country: { code: 'FI', name: 'Finland' }, timeZone: 'Europe/Helsinki', asn: { number: 24940, name: 'Hetzner Online GmbH', network: '127.0.0.0/24' } });
  });

  it('cloudflare trace: key=value lines in the real order', () => {
    const keys = body('cloudflare-trace').trim().split('\n').map((l) => l.split('=')[0]);
    expect(keys).toEqual(['fl', 'h', 'ip', 'ts', 'visit_scheme', 'uag', 'colo', 'sliver', 'http', 'loc', 'tls', 'sni', 'warp', 'gateway', 'rbi', 'kex']);
    expect(body('cloudflare-trace')).toContain('colo=HEL\n');
    expect(body('cloudflare-trace')).toContain('uag=probe/1\n');
  });

  it('the user address reads as home (a censored network)', () => {
    expect(readIpInfo('ipapi.co', okReply('ipapi.co', { ...caller, ip: '127.0.0.1', place: HOME }).body)).toEqual({ ip: '127.0.0.1', country: 'IR' });
  });

  it.each(LAB_IP_INFO_SERVICES)('%s rate-limits the way the real service does', (service) => {
    const reply = rateLimitedReply(service);
    expect(isRateLimited(service, reply.status, reply.body, reply.headers)).toBe(true);
    expect(() => readIpInfo(service, reply.body)).toThrow();
  });

  it('ipwho.is says it in a 200, the others with 429', () => {
    expect(rateLimitedReply('ipwho.is')).toMatchObject({ status: 200 });
    expect(JSON.parse(rateLimitedReply('ipwho.is').body)).toEqual({ success: false, message: "You've hit the monthly limit" });
    expect(JSON.parse(rateLimitedReply('ipapi.co').body)).toMatchObject({ error: true, reason: 'RateLimited' });
    expect(rateLimitedReply('ip-api.com').headers).toMatchObject({ 'x-rl': '0', 'x-ttl': '60' });
    expect(rateLimitedReply('ipinfo.io').body).toBe('Too Many Requests');
  });
});
