/**
 * One parser per IP-info service, for the format that service really answers in. Each turns an
 * HTTP answer into an `IpInfo` or a reason to move on to the next service (rate limit, an error
 * body, something that is not the expected format).
 */
import type { IpInfo } from '../../../shared/domain/measurement';
import type { IpInfoSource } from '../policy/ipinfo-order';

export type IpInfoParse = { ok: true; info: IpInfo } | { ok: false; reason: string };

type Json = Record<string, unknown>;

export function parseIpInfoAnswer(source: IpInfoSource, status: number, body: string): IpInfoParse {
  if (status === 429) return fail('rate limited (HTTP 429)');
  if (status < 200 || status > 299) return fail(`HTTP ${status}`);
  if (source === 'cloudflare-trace') return parseCloudflareTrace(body);
  let data: unknown;
  try {
    data = JSON.parse(body);
  } catch {
    return fail('the answer is not JSON');
  }
  if (!isObject(data)) return fail('the answer is not a JSON object');
  switch (source) {
    case 'custom':
    case 'ipapi.co':
      return parseIpapiCo(data, source === 'custom' ? 'ipinfo_url' : 'ipapi.co');
    case 'ip-api.com':
      return parseIpApiCom(data);
    case 'ipinfo.io':
      return parseIpinfoIo(data);
    case 'api.ip.sb':
      return parseIpSb(data);
    case 'ipwho.is':
      return parseIpwhoIs(data);
    case 'api.country.is':
      return parseCountryIs(data);
    case 'api.my-ip.io':
      return parseMyIpIo(data);
  }
}

/** ipapi.co: `ip, country_code, country_name, region, city, asn: "AS13335", org`; errors as `error: true, reason`. */
function parseIpapiCo(data: Json, source: string): IpInfoParse {
  if (data.error === true) return fail(`error: ${text(data.reason) ?? text(data.message) ?? 'unspecified'}`);
  const ip = ipOf(data.ip);
  if (!ip) return fail('no ip field');
  const code = countryCode(data.country_code) ?? countryCode(data.country);
  return ok({
    ip,
    countryCode: code,
    country: text(data.country_name) ?? (code ? undefined : text(data.country)),
    region: text(data.region),
    city: text(data.city),
    asn: asnOf(data.asn),
    org: text(data.org),
    source,
  });
}

/** ip-api.com: `status, query, countryCode, country, regionName, city, as: "AS16509 Amazon.com, Inc.", org, isp`. */
function parseIpApiCom(data: Json): IpInfoParse {
  if (data.status !== 'success') return fail(`status ${text(data.status) ?? 'missing'}: ${text(data.message) ?? 'no message'}`);
  const ip = ipOf(data.query);
  if (!ip) return fail('no query field');
  const as = splitAs(text(data.as));
  return ok({
    ip,
    countryCode: countryCode(data.countryCode),
    country: text(data.country),
    region: text(data.regionName),
    city: text(data.city),
    asn: as.asn,
    org: text(data.org) ?? text(data.isp) ?? as.org,
    source: 'ip-api.com',
  });
}

/** ipinfo.io: `ip, country (ISO2), region, city, org: "AS16509 Amazon.com, Inc."`. */
function parseIpinfoIo(data: Json): IpInfoParse {
  if (isObject(data.error)) return fail(`error: ${text(data.error.title) ?? text(data.error.message) ?? 'unspecified'}`);
  const ip = ipOf(data.ip);
  if (!ip) return fail('no ip field');
  const as = splitAs(text(data.org));
  return ok({
    ip,
    countryCode: countryCode(data.country),
    region: text(data.region),
    city: text(data.city),
    asn: as.asn,
    org: as.org,
    source: 'ipinfo.io',
  });
}

/** api.ip.sb: `ip, country_code, country, region, city, asn (number), asn_organization, organization`. */
function parseIpSb(data: Json): IpInfoParse {
  const ip = ipOf(data.ip);
  if (!ip) return fail('no ip field');
  return ok({
    ip,
    countryCode: countryCode(data.country_code),
    country: text(data.country),
    region: text(data.region),
    city: text(data.city),
    asn: asnOf(data.asn),
    org: text(data.asn_organization) ?? text(data.organization) ?? text(data.isp),
    source: 'api.ip.sb',
  });
}

/** ipwho.is: `success, ip, country_code, country, region, city, connection: {asn, org, isp}`; a limit is `success: false, message`. */
function parseIpwhoIs(data: Json): IpInfoParse {
  if (data.success !== true) return fail(`success false: ${text(data.message) ?? 'no message'}`);
  const ip = ipOf(data.ip);
  if (!ip) return fail('no ip field');
  const connection = isObject(data.connection) ? data.connection : {};
  return ok({
    ip,
    countryCode: countryCode(data.country_code),
    country: text(data.country),
    region: text(data.region),
    city: text(data.city),
    asn: asnOf(connection.asn),
    org: text(connection.org) ?? text(connection.isp),
    source: 'ipwho.is',
  });
}

/** api.country.is: `{ip, country}`. */
function parseCountryIs(data: Json): IpInfoParse {
  if (data.error !== undefined) return fail('error answer');
  const ip = ipOf(data.ip);
  if (!ip) return fail('no ip field');
  return ok({ ip, countryCode: countryCode(data.country), source: 'api.country.is' });
}

/** api.my-ip.io: `{success, ip, country: {code, name}, region, city, asn: {number, name}}`. */
function parseMyIpIo(data: Json): IpInfoParse {
  if (data.success !== true) return fail(`success false: ${text(data.error) ?? text(data.message) ?? 'no message'}`);
  const ip = ipOf(data.ip);
  if (!ip) return fail('no ip field');
  const country = isObject(data.country) ? data.country : {};
  const asn = isObject(data.asn) ? data.asn : {};
  return ok({
    ip,
    countryCode: countryCode(country.code),
    country: text(country.name),
    region: text(data.region),
    city: text(data.city),
    asn: asnOf(asn.number),
    org: text(asn.name),
    source: 'api.my-ip.io',
  });
}

/** Cloudflare `cdn-cgi/trace`: `key=value` lines, `ip=…` and `loc=FI`. */
function parseCloudflareTrace(body: string): IpInfoParse {
  const fields = new Map<string, string>();
  for (const line of body.split(/\r?\n/)) {
    const eq = line.indexOf('=');
    if (eq > 0) fields.set(line.slice(0, eq).trim(), line.slice(eq + 1).trim());
  }
  const ip = ipOf(fields.get('ip'));
  if (!ip) return fail('no ip= line');
  return ok({ ip, countryCode: countryCode(fields.get('loc')), source: 'cloudflare-trace' });
}

function ok(info: IpInfo): IpInfoParse {
  // Drop absent fields so cached and fresh info compare and serialize the same way.
  const clean = Object.fromEntries(Object.entries(info).filter(([, v]) => v !== undefined)) as unknown as IpInfo;
  return { ok: true, info: clean };
}

function fail(reason: string): IpInfoParse {
  return { ok: false, reason };
}

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function text(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  const trimmed = value.trim();
  return trimmed === '' ? undefined : trimmed.slice(0, 200);
}

const IPV4 = /^(25[0-5]|2[0-4]\d|1?\d?\d)(\.(25[0-5]|2[0-4]\d|1?\d?\d)){3}$/;
const IPV6 = /^[0-9a-f:]+(:(25[0-5]|2[0-4]\d|1?\d?\d)(\.(25[0-5]|2[0-4]\d|1?\d?\d)){3})?$/i;

function ipOf(value: unknown): string | undefined {
  const candidate = text(value);
  if (!candidate) return undefined;
  if (IPV4.test(candidate)) return candidate;
  if (candidate.includes(':') && IPV6.test(candidate)) return candidate.toLowerCase();
  return undefined;
}

function countryCode(value: unknown): string | undefined {
  const candidate = text(value);
  // "XX" is Cloudflare's unknown, "T1" its Tor marker: neither is a country.
  if (!candidate || !/^[A-Za-z]{2}$/.test(candidate) || /^xx$/i.test(candidate)) return undefined;
  return candidate.toUpperCase();
}

/** AS numbers are 32-bit and AS0 is reserved: anything else (1e235, "AS0") is no ASN. */
const MAX_ASN = 4_294_967_295;

function asnOf(value: unknown): string | undefined {
  const candidate = typeof value === 'number' ? value : Number(text(value)?.match(/^(?:AS)?(\d{1,10})$/i)?.[1]);
  return Number.isInteger(candidate) && candidate > 0 && candidate <= MAX_ASN ? `AS${candidate}` : undefined;
}

/** "AS16509 Amazon.com, Inc." → { asn: "AS16509", org: "Amazon.com, Inc." }. */
function splitAs(value: string | undefined): { asn?: string; org?: string } {
  if (!value) return {};
  const match = value.match(/^AS(\d+)\s*(.*)$/i);
  if (!match) return { org: value };
  return { asn: asnOf(match[1]), org: text(match[2]) };
}
