import { describe, expect, it } from 'vitest';
import { dnsSettingsSchema, routingSettingsSchema } from '../../../shared/routing';
import { sampleServer } from '../../core/samples';
import { profileFromTable } from '../../core/testing/profile';
import { tunnelConfig } from '../../core/tunnel-config';
import { routingPlan } from '../policy/plan';
import { firstMatch } from '../testing/first-match';
import { shippedRegions } from '../testing/shipped-regions';
import type { RuleSetRoute } from './content';

const core = profileFromTable('xray', '26.3.27');
const shipped = shippedRegions();
const set = (over: Partial<RuleSetRoute>): RuleSetRoute => ({ id: 'lab', name: 'Lab', outbound: 'direct', inPlaceOfPreset: false, domains: [], cidrs: [], revision: 1, ...over });

function configFor(routing: unknown, sets: RuleSetRoute[], data: Parameters<typeof routingPlan>[2] = shipped) {
  const plan = routingPlan(routingSettingsSchema.parse(routing), dnsSettingsSchema.parse({}), data, sets);
  const config = tunnelConfig({ server: sampleServer('vmess'), core, listen: '127.0.0.1', httpPort: 20001, socksPort: 20002, apiPort: 20003, routing: plan.routing });
  return { plan, route: (to: Parameters<typeof firstMatch>[1]) => firstMatch(config, to), rules: (config.routing as { rules: Record<string, unknown>[] }).rules };
}

describe('rule sets in the routing plan', () => {
  it.each([
    ['a name in a direct set goes direct', { preset: 'global' }, [set({ domains: ['domain:inset.lab.test'] })], { domain: 'a.inset.lab.test' }, 'direct'],
    ['a name outside it follows the preset (global: the server)', { preset: 'global' }, [set({ domains: ['domain:inset.lab.test'] })], { domain: 'out.lab.test' }, 'proxy'],
    ['an address in a block set is blocked', {}, [set({ outbound: 'block', cidrs: ['203.0.113.0/24'] })], { ip: '203.0.113.9' }, 'block'],
    ['a proxy set keeps a preset-direct name on the server (sets come before the preset)', { preset: 'ru' }, [set({ outbound: 'proxy', domains: ['domain:blocked.ru'] })], { domain: 'www.blocked.ru' }, 'proxy'],
    ['the preset still sends its other names direct', { preset: 'ru' }, [set({ outbound: 'proxy', domains: ['domain:blocked.ru'] })], { domain: 'shop.ru' }, 'direct'],
    ['the user’s own rules come first', { rules: [{ domain: ['full:a.inset.lab.test'], outbound: 'block' }] }, [set({ domains: ['domain:inset.lab.test'] })], { domain: 'a.inset.lab.test' }, 'block'],
  ] as const)('%s', (_, routing, sets, to, outbound) => {
    expect(configFor(routing, [...sets]).route(to)).toBe(outbound);
  });

  it('a name set in place of the preset replaces its shipped names and keeps its IP ranges', () => {
    const { route, plan } = configFor({ preset: 'ru' }, [set({ name: 'runetfreedom', inPlaceOfPreset: true, domains: ['domain:inset.lab.test'] })]);
    expect(route({ domain: 'shop.ru' })).toBe('proxy');
    expect(route({ domain: 'a.inset.lab.test' })).toBe('direct');
    expect(route({ ip: '77.88.8.8' })).toBe('direct');
    expect(plan.presetInForce).toBe('ru');
    expect(plan.dataDate).toBe('2026-06-17');
    expect(plan.notices).toEqual(['the ru preset takes its names from rule set "runetfreedom" in place of its shipped list']);
  });

  it('an address set in place of the preset replaces its IP ranges, and holds the preset in force without region data', () => {
    const { route, plan } = configFor({ preset: 'ir' }, [set({ name: 'geoip ir', inPlaceOfPreset: true, cidrs: ['198.51.100.0/24'] })], { problem: 'regions.json is missing' });
    expect(plan.presetInForce).toBe('ir');
    expect(plan.dataDate).toBeNull();
    expect(route({ ip: '198.51.100.7' })).toBe('direct');
    expect(route({ ip: '2.176.10.20' })).toBe('proxy');
    expect(route({ domain: 'bank-melli.ir' })).toBe('direct');
    expect(plan.notices).toEqual(['the ir preset takes its IP ranges from rule set "geoip ir" in place of the shipped region data']);
  });

  it('a .dat list reaches Xray as an ext: reference, and an address list makes names resolve for the IP rules', () => {
    const { rules, plan } = configFor({ bypassLan: false }, [set({ domains: ['ext:geo.dat:labset'] }), set({ id: 'ip', cidrs: ['ext:ip.dat:lab'] })]);
    expect(rules).toEqual(expect.arrayContaining([
      { type: 'field', outboundTag: 'direct', domain: ['ext:geo.dat:labset'] },
      { type: 'field', outboundTag: 'direct', ip: ['ext:ip.dat:lab'] },
    ]));
    expect(plan.routing.domainStrategy).toBe('IPIfNonMatch');
    // The domestic resolver answers the set's direct names too.
    expect(plan.routing.dns.directDomains).toContain('ext:geo.dat:labset');
  });
});
