import { describe, expect, it } from 'vitest';
import { DEFAULT_IP_INFO_URLS } from '../../../shared/settings';
import { ipInfoPlan } from './ipinfo-order';

describe('IP-info service order', () => {
  it('asks ipinfo_url first, then the seven starting from a random one, then the trio together', () => {
    const plan = ipInfoPlan('http://mine.test/json', DEFAULT_IP_INFO_URLS, 3 / 7 + 0.01);
    expect(plan.sequence.map((s) => s.source)).toEqual([
      'custom',
      'api.ip.sb',
      'ipwho.is',
      'api.country.is',
      'api.my-ip.io',
      'ipapi.co',
      'ip-api.com',
      'ipinfo.io',
    ]);
    expect(plan.sequence[0]?.url).toBe('http://mine.test/json');
    expect(plan.fallback.map((s) => s.source)).toEqual(['cloudflare-trace', 'api.country.is', 'api.my-ip.io']);
  });

  it('starts each of the seven equally often over the random range and skips an unset ipinfo_url', () => {
    const firsts = [0, 0.15, 0.3, 0.45, 0.6, 0.75, 0.9, 0.999999].map((r) => ipInfoPlan('', DEFAULT_IP_INFO_URLS, r).sequence[0]?.source);
    expect(firsts).toEqual(['ipapi.co', 'ip-api.com', 'ipinfo.io', 'api.ip.sb', 'ipwho.is', 'api.country.is', 'api.my-ip.io', 'api.my-ip.io']);
  });

  it('uses the URLs it is given (settings overrides)', () => {
    const plan = ipInfoPlan('', { ...DEFAULT_IP_INFO_URLS, 'ipapi.co': 'http://127.0.0.1:9/ipapi' }, 0);
    expect(plan.sequence[0]).toEqual({ source: 'ipapi.co', url: 'http://127.0.0.1:9/ipapi' });
  });
});
