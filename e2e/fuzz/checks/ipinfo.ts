import type { IpInfoParse } from '../../../app/monitor/ipinfo/parsers';
import type { IpInfoInput } from '../gen/ipinfo';
import { ensure, show } from './violation';

const IPV4 = /^(25[0-5]|2[0-4]\d|1?\d?\d)(\.(25[0-5]|2[0-4]\d|1?\d?\d)){3}$/;
const IPV6 = /^[0-9a-f:.]+$/;
const TEXT_FIELDS = ['country', 'region', 'city', 'org'] as const;

/** An IP-info answer gives either well-formed info (an IP, an ISO country, an AS number) or a reason to move on. */
export function checkIpInfo(input: IpInfoInput, result: IpInfoParse): void {
  ensure(result !== null && typeof result === 'object' && typeof result.ok === 'boolean', () => `result ${show(result)}`);
  if (!result.ok) {
    ensure(typeof result.reason === 'string' && result.reason.trim().length > 0, 'a failure without a reason');
    return;
  }
  ensure(input.status >= 200 && input.status <= 299, () => `HTTP ${input.status} was accepted`);
  const info = result.info;
  ensure(IPV4.test(info.ip) || (info.ip.includes(':') && IPV6.test(info.ip)), () => `ip ${show(info.ip)} is not an address`);
  if ('countryCode' in info) ensure(typeof info.countryCode === 'string' && /^[A-Z]{2}$/.test(info.countryCode) && info.countryCode !== 'XX', () => `countryCode ${show(info.countryCode)}`);
  // AS numbers are 32-bit, and AS0 is reserved.
  if ('asn' in info) ensure(typeof info.asn === 'string' && /^AS[1-9]\d{0,9}$/.test(info.asn) && Number(info.asn.slice(2)) <= 4_294_967_295, () => `asn ${show(info.asn)}`);
  for (const field of TEXT_FIELDS) {
    if (!(field in info)) continue;
    const value = info[field];
    ensure(typeof value === 'string' && value.trim() === value && value.length > 0 && value.length <= 200, () => `${field} ${show(value)}`);
  }
  ensure(typeof info.source === 'string' && info.source.length > 0, 'no source');
  for (const [key, value] of Object.entries(info)) ensure(value !== undefined, () => `${key} is present but undefined`);
}
