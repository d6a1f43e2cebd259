/**
 * The order IP-info services are asked in (spec/monitor.md "IP-info services"): `ipinfo_url`
 * first when set (ipapi.co-like JSON), then the seven public services in turn starting from a
 * random one (so the load of many clients spreads over all of them), then — when all failed —
 * Cloudflare's trace together with api.country.is and api.my-ip.io, for address and country only.
 */
import { IP_INFO_SERVICES, type IpInfoService } from '../../../shared/settings';

/** `custom` is the user's `ipinfo_url`, parsed as ipapi.co-like JSON. */
export type IpInfoSource = IpInfoService | 'custom';

export interface IpInfoStep {
  source: IpInfoSource;
  url: string;
}

export interface IpInfoPlan {
  /** Asked one after another until one answers. */
  sequence: IpInfoStep[];
  /** Asked together when the whole sequence failed. */
  fallback: IpInfoStep[];
}

export const FALLBACK_SERVICES: readonly IpInfoService[] = ['cloudflare-trace', 'api.country.is', 'api.my-ip.io'];

/**
 * @param urls where each service is asked (settings overrides merged over the defaults)
 * @param random a number in [0, 1) choosing the first of the seven
 */
export function ipInfoPlan(ipinfoUrl: string, urls: Record<IpInfoService, string>, random: number): IpInfoPlan {
  const count = IP_INFO_SERVICES.length;
  const start = Math.min(count - 1, Math.max(0, Math.floor(random * count)));
  const rotated = IP_INFO_SERVICES.map((_, i) => IP_INFO_SERVICES[(start + i) % count] as IpInfoService);
  const sequence: IpInfoStep[] = [];
  if (ipinfoUrl) sequence.push({ source: 'custom', url: ipinfoUrl });
  for (const service of rotated) sequence.push({ source: service, url: urls[service] });
  return { sequence, fallback: FALLBACK_SERVICES.map((service) => ({ source: service, url: urls[service] })) };
}
