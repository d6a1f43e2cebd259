import fc from 'fast-check';
import type { IpInfoSource } from '../../../app/monitor/policy/ipinfo-order';
import { mutated, perturbedJson, wrongJsonValue } from './mutate';

/**
 * IP-info answers: each service's own shape (valid, with wrong field types, with other
 * services' shapes, rate-limit and error bodies), non-JSON (HTML portals), and the Cloudflare
 * trace's key=value text; any HTTP status.
 */
export const IP_INFO_SOURCES: readonly IpInfoSource[] = [
  'custom',
  'ipapi.co',
  'ip-api.com',
  'ipinfo.io',
  'api.ip.sb',
  'ipwho.is',
  'api.country.is',
  'api.my-ip.io',
  'cloudflare-trace',
];

export interface IpInfoInput {
  source: IpInfoSource;
  status: number;
  body: string;
}

const ip = fc.oneof(fc.ipV4(), fc.ipV6(), fc.ipV4Extended(), fc.constantFrom('not an ip', '999.1.1.1', '::ffff:1.2.3.4', ' 1.2.3.4 ', ''));
const cc = fc.oneof(fc.constantFrom('FI', 'us', 'XX', 'T1', 'IR', 'ru', '', 'USA'), fc.string({ maxLength: 3 }));
const words = fc.string({ unit: 'grapheme', maxLength: 30 });
const asn = fc.oneof(fc.nat().map((n) => `AS${n}`), fc.nat(), fc.constantFrom('AS', 'as13335', '13335', -1, 0, 1.5));

/** The right shape for each service, with plausible (sometimes odd) values. */
const shapes: Record<Exclude<IpInfoSource, 'cloudflare-trace' | 'custom'>, fc.Arbitrary<Record<string, unknown>>> = {
  'ipapi.co': fc.record({ ip, country_code: cc, country_name: words, country: cc, region: words, city: words, asn, org: words }, { requiredKeys: ['ip'] }),
  'ip-api.com': fc.record({ status: fc.constantFrom('success', 'fail'), query: ip, countryCode: cc, country: words, regionName: words, city: words, as: fc.oneof(asn, words.map((w) => `AS1 ${w}`)), org: words, isp: words }, { requiredKeys: ['status'] }),
  'ipinfo.io': fc.record({ ip, country: cc, region: words, city: words, org: words.map((w) => `AS16509 ${w}`), error: fc.record({ title: words, message: words }) }, { requiredKeys: [] }),
  'api.ip.sb': fc.record({ ip, country_code: cc, country: words, region: words, city: words, asn, asn_organization: words, organization: words }, { requiredKeys: ['ip'] }),
  'ipwho.is': fc.record({ success: fc.boolean(), ip, country_code: cc, country: words, region: words, city: words, connection: fc.record({ asn, org: words, isp: words }), message: words }, { requiredKeys: ['success'] }),
  'api.country.is': fc.record({ ip, country: cc, error: words }, { requiredKeys: ['ip'] }),
  'api.my-ip.io': fc.record({ success: fc.boolean(), ip, country: fc.record({ code: cc, name: words }), region: words, city: words, asn: fc.record({ number: asn, name: words }) }, { requiredKeys: ['success'] }),
};

const anyShape = fc.oneof(...Object.values(shapes));

const jsonAnswer = fc.oneof(
  { weight: 4, arbitrary: anyShape.map((o) => JSON.stringify(o)) },
  { weight: 3, arbitrary: perturbedJson(anyShape, 3).map((o) => JSON.stringify(o)) },
  { weight: 2, arbitrary: mutated(anyShape.map((o) => JSON.stringify(o)), 3) },
  { weight: 1, arbitrary: wrongJsonValue.map((v) => JSON.stringify(v) ?? 'undefined') },
  { weight: 1, arbitrary: fc.constantFrom('<html><body>Login to Wi-Fi</body></html>', 'error code: 1015', '', ' ', '{', 'null', '[]', '{"__proto__":{"ip":"1.2.3.4"}}') },
);

const traceLine = fc.oneof(
  fc.tuple(fc.constantFrom('ip', 'loc', 'fl', 'h', 'colo', 'warp', ''), fc.oneof(ip, cc, words)).map(([k, v]) => `${k}=${v}`),
  words,
);
const traceAnswer = fc.oneof(
  fc.tuple(fc.array(traceLine, { maxLength: 20 }), fc.constantFrom('\n', '\r\n')).map(([lines, eol]) => lines.join(eol)),
  mutated(fc.tuple(ip, cc).map(([i, c]) => `fl=466f12\nh=cloudflare.com\nip=${i}\nts=1767225600.123\nloc=${c}\nwarp=off\n`), 3),
  jsonAnswer,
);

const status = fc.oneof({ weight: 6, arbitrary: fc.constant(200) }, { weight: 1, arbitrary: fc.constantFrom(0, 204, 301, 403, 429, 500, 502, 999, -1) });

export const ipInfoInput: fc.Arbitrary<IpInfoInput> = fc.oneof(
  fc.record({ source: fc.constantFrom(...IP_INFO_SOURCES.filter((s) => s !== 'cloudflare-trace')), status, body: jsonAnswer }),
  fc.record({ source: fc.constant<IpInfoSource>('cloudflare-trace'), status, body: traceAnswer }),
  fc.record({ source: fc.constantFrom(...IP_INFO_SOURCES), status, body: fc.string({ unit: 'binary', maxLength: 300 }) }),
);
