/**
 * Reads a stand-in's answer back the way a client of the real service would, checking the fields
 * and types that service's format promises. Used by the selftest and the tests to prove each
 * stand-in speaks its service's format.
 */
import type { IpInfoService } from '../../shared/settings';

export interface IpInfoReading {
  ip: string;
  country: string;
}

type Json = Record<string, unknown>;

function need(condition: boolean, what: string): void {
  if (!condition) throw new Error(what);
}

const isNum = (v: unknown) => typeof v === 'number' && Number.isFinite(v);
const isStr = (v: unknown) => typeof v === 'string';

/** Parses one service's OK answer; throws naming the first field that is not as the service sends it. */
export function readIpInfo(service: IpInfoService, body: string): IpInfoReading {
  if (service === 'cloudflare-trace') {
    const fields = Object.fromEntries(
      body
        .split('\n')
        .filter((l) => l.includes('='))
        .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
    );
    for (const key of ['fl', 'h', 'ip', 'ts', 'visit_scheme', 'uag', 'colo', 'sliver', 'http', 'loc', 'tls', 'sni', 'warp', 'gateway', 'rbi', 'kex']) {
      need(key in fields, `trace: no ${key}=`);
    }
    need(/^[A-Z]{2}$/.test(fields.loc as string), 'trace: loc is not a country code');
    return { ip: fields.ip as string, country: fields.loc as string };
  }
  const j = JSON.parse(body) as Json;
  switch (service) {
    case 'ipapi.co':
      need(isStr(j.ip) && isStr(j.network) && j.version === 'IPv4', 'ipapi.co: ip/network/version');
      need(isStr(j.country) && isStr(j.country_name) && j.country_code === j.country && isStr(j.country_code_iso3), 'ipapi.co: country fields');
      need(typeof j.in_eu === 'boolean' && isNum(j.latitude) && isNum(j.longitude), 'ipapi.co: in_eu/latitude/longitude');
      need(isStr(j.asn) && /^AS\d+$/.test(j.asn as string) && isStr(j.org) && isStr(j.utc_offset), 'ipapi.co: asn/org/utc_offset');
      return { ip: j.ip as string, country: j.country as string };
    case 'ip-api.com':
      need(j.status === 'success' && isStr(j.query) && isStr(j.countryCode) && isStr(j.regionName), 'ip-api.com: status/query/countryCode');
      need(isNum(j.lat) && isNum(j.lon) && isStr(j.as) && /^AS\d+ /.test(j.as as string) && isStr(j.isp), 'ip-api.com: lat/lon/as/isp');
      return { ip: j.query as string, country: j.countryCode as string };
    case 'ipinfo.io':
      need(isStr(j.ip) && isStr(j.country) && isStr(j.loc) && /^-?\d+\.\d+,-?\d+\.\d+$/.test(j.loc as string), 'ipinfo.io: ip/country/loc');
      need(isStr(j.org) && /^AS\d+ /.test(j.org as string) && isStr(j.timezone), 'ipinfo.io: org/timezone');
      return { ip: j.ip as string, country: j.country as string };
    case 'api.ip.sb':
      need(isStr(j.ip) && isStr(j.country_code) && isStr(j.country) && isNum(j.asn) && isNum(j.offset), 'api.ip.sb: ip/country/asn/offset');
      need(isNum(j.latitude) && isNum(j.longitude) && isStr(j.asn_organization), 'api.ip.sb: latitude/longitude/asn_organization');
      return { ip: j.ip as string, country: j.country_code as string };
    case 'ipwho.is': {
      need(j.success === true && j.type === 'IPv4' && isStr(j.ip) && isStr(j.country_code), 'ipwho.is: success/type/ip/country_code');
      const connection = j.connection as Json | undefined;
      const flag = j.flag as Json | undefined;
      const timezone = j.timezone as Json | undefined;
      need(!!connection && isNum(connection.asn) && isStr(connection.isp), 'ipwho.is: connection');
      need(!!flag && isStr(flag.emoji) && isStr(flag.img), 'ipwho.is: flag');
      need(!!timezone && isStr(timezone.id) && isNum(timezone.offset) && typeof timezone.is_dst === 'boolean', 'ipwho.is: timezone');
      return { ip: j.ip as string, country: j.country_code as string };
    }
    case 'api.country.is':
      need(isStr(j.ip) && isStr(j.country) && Object.keys(j).length === 2, 'api.country.is: {ip, country}');
      return { ip: j.ip as string, country: j.country as string };
    case 'api.my-ip.io': {
      const country = j.country as Json | undefined;
      const asn = j.asn as Json | undefined;
      const location = j.location as Json | undefined;
      need(j.success === true && isStr(j.ip) && j.type === 'IPv4', 'api.my-ip.io: success/ip/type');
      need(!!country && isStr(country.code) && isStr(country.name), 'api.my-ip.io: country');
      need(!!asn && isNum(asn.number) && !!location && isNum(location.lat), 'api.my-ip.io: asn/location');
      return { ip: j.ip as string, country: country?.code as string };
    }
  }
}

/** Whether an answer is that service's way of saying "rate limited". */
export function isRateLimited(service: IpInfoService, status: number, body: string, headers: Record<string, string | string[] | undefined> = {}): boolean {
  switch (service) {
    case 'ipwho.is':
      return status === 200 && (JSON.parse(body) as Json).success === false;
    case 'ip-api.com':
      return status === 429 && headers['x-rl'] === '0';
    case 'ipapi.co':
      return status === 429 && (JSON.parse(body) as Json).reason === 'RateLimited';
    default:
      return status === 429;
  }
}
