/**
 * The IP-info stand-ins' answers, in each real service's response format (field names and types
 * as the services send them), filled from the lab's geography for the caller's address.
 */
import type { IpInfoService } from '../../shared/settings';
import { type Place, flagEmoji, flagUnicode, formatOffset } from './geo';

export const LAB_IP_INFO_SERVICES: readonly IpInfoService[] = [
  'ipapi.co',
  'ip-api.com',
  'ipinfo.io',
  'api.ip.sb',
  'ipwho.is',
  'api.country.is',
  'api.my-ip.io',
  'cloudflare-trace',
];

/** Where each stand-in is mounted on the target (mirrors the real service's own path). */
export const IP_INFO_PATHS: Record<IpInfoService, string> = {
  'ipapi.co': '/svc/ipapi.co/json/',
  'ip-api.com': '/svc/ip-api.com/json/',
  'ipinfo.io': '/svc/ipinfo.io/json',
  'api.ip.sb': '/svc/api.ip.sb/geoip',
  'ipwho.is': '/svc/ipwho.is/',
  'api.country.is': '/svc/api.country.is/',
  'api.my-ip.io': '/svc/api.my-ip.io/v2/ip.json',
  'cloudflare-trace': '/svc/cloudflare-trace/cdn-cgi/trace',
};

export interface Reply {
  status: number;
  headers: Record<string, string>;
  body: string;
}

export interface Caller {
  ip: string;
  place: Place;
  userAgent: string;
  nowMs: number;
}

const JSON_TYPE = { 'content-type': 'application/json; charset=utf-8' };
const TEXT_TYPE = { 'content-type': 'text/plain; charset=utf-8' };

const json = (body: unknown, status = 200, headers: Record<string, string> = {}): Reply => ({
  status,
  headers: { ...JSON_TYPE, ...headers },
  body: JSON.stringify(body),
});
const text = (body: string, status = 200, headers: Record<string, string> = {}): Reply => ({ status, headers: { ...TEXT_TYPE, ...headers }, body });

/** The /24 the caller's address sits in, as a network the lab "owns". */
function networkOf(ip: string): string {
  const parts = ip.split('.');
  return `${parts.slice(0, 3).join('.')}.0/24`;
}

const asName = (p: Place) => `AS${p.asn} ${p.org}`;

export function okReply(service: IpInfoService, caller: Caller): Reply {
  const { ip, place: p } = caller;
  switch (service) {
    case 'ipapi.co':
      return json({
        ip,
        network: networkOf(ip),
        version: 'IPv4',
        city: p.city,
        region: p.region,
        region_code: p.regionCode,
        country: p.code,
        country_name: p.name,
        country_code: p.code,
        country_code_iso3: p.iso3,
        country_capital: p.capital,
        country_tld: p.tld,
        continent_code: p.continentCode,
        in_eu: p.inEu,
        postal: p.postal,
        latitude: p.latitude,
        longitude: p.longitude,
        timezone: p.timezone,
        utc_offset: formatOffset(p.utcOffsetMinutes, false),
        country_calling_code: `+${p.callingCode}`,
        currency: p.currency,
        asn: `AS${p.asn}`,
        org: p.org,
      });
    case 'ip-api.com':
      return json(
        {
          status: 'success',
          country: p.name,
          countryCode: p.code,
          region: p.regionCode,
          regionName: p.region,
          city: p.city,
          zip: p.postal,
          lat: p.latitude,
          lon: p.longitude,
          timezone: p.timezone,
          isp: p.isp,
          org: p.org,
          as: asName(p),
          query: ip,
        },
        200,
        { 'x-rl': '44', 'x-ttl': '60' },
      );
    case 'ipinfo.io':
      return json({
        ip,
        city: p.city,
        region: p.region,
        country: p.code,
        loc: `${p.latitude.toFixed(4)},${p.longitude.toFixed(4)}`,
        org: asName(p),
        postal: p.postal,
        timezone: p.timezone,
        readme: 'https://ipinfo.io/missingauth',
      });
    case 'api.ip.sb':
      return json({
        organization: p.org,
        longitude: p.longitude,
        city: p.city,
        timezone: p.timezone,
        isp: p.isp,
        offset: p.utcOffsetMinutes * 60,
        region: p.region,
        asn: p.asn,
        asn_organization: p.org,
        country: p.name,
        ip,
        latitude: p.latitude,
        continent_code: p.continentCode,
        country_code: p.code,
        region_code: p.regionCode,
      });
    case 'ipwho.is':
      return json({
        ip,
        success: true,
        type: 'IPv4',
        continent: p.continent,
        continent_code: p.continentCode,
        country: p.name,
        country_code: p.code,
        region: p.region,
        region_code: p.regionCode,
        city: p.city,
        latitude: p.latitude,
        longitude: p.longitude,
        is_eu: p.inEu,
        postal: p.postal,
        calling_code: p.callingCode,
        capital: p.capital,
        borders: p.borders,
        flag: { img: `https://cdn.ipwhois.io/flags/${p.code.toLowerCase()}.svg`, emoji: flagEmoji(p.code), emoji_unicode: flagUnicode(p.code) },
        connection: { asn: p.asn, org: p.org, isp: p.isp, domain: p.domain },
        timezone: {
          id: p.timezone,
          abbr: p.timezoneAbbr,
          is_dst: false,
          offset: p.utcOffsetMinutes * 60,
          utc: formatOffset(p.utcOffsetMinutes, true),
          current_time: new Date(caller.nowMs + p.utcOffsetMinutes * 60_000).toISOString().replace('Z', formatOffset(p.utcOffsetMinutes, true)),
        },
      });
    case 'api.country.is':
      return json({ ip, country: p.code });
    case 'api.my-ip.io':
      return json({
        success: true,
        ip,
        type: 'IPv4',
        country: { code: p.code, name: p.name },
        region: p.region,
        city: p.city,
        location: { lat: p.latitude, lon: p.longitude },
        timeZone: p.timezone,
        asn: { number: p.asn, name: p.org, network: networkOf(ip) },
      });
    case 'cloudflare-trace':
      return text(
        [
          `fl=${(p.asn % 1000) + 17}f${(p.asn % 97) + 3}`,
          'h=cloudflare.com',
          `ip=${ip}`,
          `ts=${(caller.nowMs / 1000).toFixed(3)}`,
          'visit_scheme=http',
          `uag=${caller.userAgent}`,
          `colo=${p.colo}`,
          'sliver=none',
          'http=http/1.1',
          `loc=${p.code}`,
          'tls=off',
          'sni=off',
          'warp=off',
          'gateway=off',
          'rbi=off',
          'kex=none',
          '',
        ].join('\n'),
      );
  }
}

/** What each service answers when it rate-limits the caller. */
export function rateLimitedReply(service: IpInfoService): Reply {
  switch (service) {
    case 'ipapi.co':
      return json({ error: true, reason: 'RateLimited', message: 'Visit https://ipapi.co/ratelimited/ for details' }, 429);
    case 'ip-api.com':
      return text('', 429, { 'x-rl': '0', 'x-ttl': '60' });
    case 'ipinfo.io':
      return text('Too Many Requests', 429);
    case 'ipwho.is':
      // ipwho.is answers 200 and says so in the body.
      return json({ success: false, message: "You've hit the monthly limit" }, 200);
    case 'api.my-ip.io':
      return json({ success: false, error: 'Too many requests' }, 429);
    case 'api.country.is':
      return json({ error: { code: 429, message: 'Too Many Requests' } }, 429);
    case 'api.ip.sb':
    case 'cloudflare-trace':
      // Both sit behind Cloudflare, whose rate limit answers this text.
      return text('error code: 1015', 429);
  }
}
