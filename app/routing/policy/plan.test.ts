import { describe, expect, it } from 'vitest';
import { profileFromTable } from '../../core/testing/profile';
import { sampleServer } from '../../core/samples';
import { tunnelConfig } from '../../core/tunnel-config';
import { dnsSettingsSchema, routingSettingsSchema } from '../../../shared/routing';
import { shippedRegions } from '../testing/shipped-regions';
import { firstMatch } from '../testing/first-match';
import { LAN_CIDRS, type RegionDataView, routingPlan } from './plan';

const shipped: RegionDataView = shippedRegions();
const core = profileFromTable('v2ray', '4.34.0');

function configFor(routing: unknown, dns: unknown = {}, data: RegionDataView | { problem: string } = shipped) {
  const plan = routingPlan(routingSettingsSchema.parse(routing), dnsSettingsSchema.parse(dns), data);
  const config = tunnelConfig({ server: sampleServer('vmess'), core, listen: '127.0.0.1', httpPort: 20001, socksPort: 20002, apiPort: 20003, routing: plan.routing });
  return { plan, config, route: (to: Parameters<typeof firstMatch>[1]) => firstMatch(config, to) };
}

describe('region presets on the generated config', () => {
  it.each([
    ['ir', '2.176.10.20', 'bank-melli.ir', 'aparat.com'],
    ['ru', '77.88.8.8', 'gosuslugi.ru', 'vk.com'],
    ['cn', '223.5.5.5', 'gov.cn', 'baidu.com'],
  ] as const)('%s: a domestic address, a domestic TLD and a listed service go direct; foreign ones through the server', (preset, domesticIp, tldName, service) => {
    const { route, plan } = configFor({ preset });
    expect(plan.presetInForce).toBe(preset);
    expect(plan.dataDate).toBe('2026-06-17');
    expect(route({ ip: domesticIp, port: 443 })).toBe('direct');
    expect(route({ domain: tldName, port: 443 })).toBe('direct');
    expect(route({ domain: `www.${service}`, port: 443 })).toBe('direct');
    expect(route({ ip: '8.8.8.8', port: 443 })).toBe('proxy');
    expect(route({ ip: '2001:4860:4860::8888', port: 443 })).toBe('proxy');
    expect(route({ domain: 'www.google.com', port: 443 })).toBe('proxy');
  });

  it('writes the Unicode TLDs as browsers send them (.рф → xn--p1ai)', () => {
    const { route } = configFor({ preset: 'ru' });
    expect(route({ domain: 'xn--80aswg.xn--p1ai' })).toBe('direct');
    expect(route({ domain: 'example.su' })).toBe('direct');
  });

  it('global sends everything through the server, the LAN aside', () => {
    const { route } = configFor({ preset: 'global' });
    expect(route({ ip: '2.176.10.20' })).toBe('proxy');
    expect(route({ domain: 'bank-melli.ir' })).toBe('proxy');
    expect(route({ ip: '192.168.1.1' })).toBe('direct');
    expect(route({ domain: 'localhost' })).toBe('direct');
  });

  it('missing region data is said in words and falls back to global; the config is still written', () => {
    const { plan, route } = configFor({ preset: 'ir' }, {}, { problem: 'the region IP ranges are missing (regions.json: ENOENT)' });
    expect(plan.presetInForce).toBe('global');
    expect(plan.notices).toEqual([
      'the ir preset is not in force: the region IP ranges are missing (regions.json: ENOENT); everything goes through the server (global)',
    ]);
    expect(route({ domain: 'bank-melli.ir' })).toBe('proxy');
    const empty = configFor({ preset: 'cn' }, {}, { date: '2026-06-17', regions: {} });
    expect(empty.plan.notices[0]).toContain('has no IP ranges for "cn"');
  });
});

describe('rules, LAN, ads and hosts', () => {
  it('the user’s rules come first and the first match wins; names or addresses, with ports', () => {
    const { route } = configFor({
      preset: 'ir',
      rules: [
        { domain: ['full:tracker.bank.ir'], outbound: 'block' },
        { domain: ['domain:bank.ir'], ip: ['203.0.113.0/24'], port: '443,8000-8100', outbound: 'proxy' },
        { ip: ['192.168.7.0/24'], outbound: 'proxy' },
      ],
    });
    expect(route({ domain: 'tracker.bank.ir', port: 443 })).toBe('block');
    expect(route({ domain: 'www.bank.ir', port: 8050 })).toBe('proxy');
    expect(route({ ip: '203.0.113.9', port: 443 })).toBe('proxy');
    // Outside the rule's ports the preset decides.
    expect(route({ domain: 'www.bank.ir', port: 80 })).toBe('direct');
    // A user rule overrides the LAN bypass.
    expect(route({ ip: '192.168.7.2' })).toBe('proxy');
    expect(route({ ip: '192.168.8.2' })).toBe('direct');
  });

  it('bypassLan covers private, loopback, link-local and CGNAT ranges; off, they go through the server', () => {
    const on = configFor({});
    for (const ip of ['10.1.2.3', '172.20.0.1', '192.168.0.1', '127.0.0.200', '169.254.1.1', '100.64.0.1', '::1', 'fd00::1', 'fe80::1']) {
      expect(on.route({ ip })).toBe('direct');
    }
    expect(LAN_CIDRS).toContain('100.64.0.0/10');
    const off = configFor({ bypassLan: false });
    expect(off.route({ ip: '127.0.0.200' })).toBe('proxy');
    expect(off.route({ domain: 'localhost' })).toBe('proxy');
  });

  it('blockAds blocks the shipped list (and nothing when off)', () => {
    expect(configFor({ blockAds: true }).route({ domain: 'stats.g.doubleclick.net' })).toBe('block');
    expect(configFor({ blockAds: true }).route({ domain: 'example.com' })).toBe('proxy');
    expect(configFor({ blockAds: false }).route({ domain: 'stats.g.doubleclick.net' })).toBe('proxy');
  });

  it('hosts reach the core’s DNS module, Unicode names in their xn-- form', () => {
    const { config } = configFor({ hosts: { 'bank.ir': '127.0.0.200', 'full:банк.рф': '127.0.0.201' } });
    expect((config.dns as { hosts: unknown }).hosts).toEqual({ 'bank.ir': '127.0.0.200', 'full:xn--80ab2al.xn--p1ai': '127.0.0.201' });
  });

  it('with no address rule nothing is resolved for routing: names reach the server unresolved', () => {
    expect(configFor({ bypassLan: false, rules: [{ domain: ['domain:bank.ir'], outbound: 'direct' }] }).plan.routing.domainStrategy).toBe('AsIs');
    expect(configFor({ bypassLan: true }).plan.routing.domainStrategy).toBe('IPIfNonMatch');
  });
});
