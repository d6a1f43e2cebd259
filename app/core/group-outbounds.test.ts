import { describe, expect, it } from 'vitest';
import type { Server } from '../../shared/domain/server';
import { groupDialTag, groupTag, groupViaTag } from './group-outbounds';
import type { CoreRouting } from './routing-config';
import { sampleServer } from './samples';
import { profileFromTable } from './testing/profile';
import { tunnelConfig } from './tunnel-config';

const xray = profileFromTable('xray', '26.3.27');
const v2ray = profileFromTable('v2ray', '4.34.0');
const named = (id: string, extra: Partial<Server> = {}) => sampleServer('vless', 'tcp', { id, name: `Server ${id}`, subscriptionId: 's', ...extra });
const routing = (...groups: string[]): CoreRouting => ({
  domainStrategy: 'AsIs',
  routes: groups.map((g) => ({ outbound: groupTag(g), domain: [`domain:${g.toLowerCase()}.test`] })),
  hosts: {},
  dns: { remote: '127.0.0.1:53', domestic: 'system', directDomains: [] },
});
const base = { server: named('main'), listen: '127.0.0.1', httpPort: 1081, socksPort: 1080, apiPort: 1085 };
type Config = { outbounds: { tag: string; protocol: string; proxySettings?: unknown; streamSettings?: { sockopt?: { dialerProxy?: string } } }[]; routing: { rules: { outboundTag: string; domain?: string[] }[] }; api: { services: string[] } };

describe('group outbounds in the tunnel config', () => {
  it('a rule through a group reaches that group’s pick, tagged as the rule names it; the main server stays the default', () => {
    const c = tunnelConfig({ ...base, core: xray, routing: routing('AI'), groups: [{ name: 'AI', pick: { server: named('us1') } }] }) as unknown as Config;
    expect(c.outbounds[0]!.tag).toBe('proxy');
    expect(c.outbounds.find((o) => o.tag === 'group:AI')?.protocol).toBe('vless');
    expect(c.routing.rules.find((r) => r.domain?.includes('domain:ai.test'))?.outboundTag).toBe('group:AI');
    // Xray swaps the group's outbound live through HandlerService.
    expect(c.api.services).toEqual(['StatsService', 'HandlerService']);
  });

  it('a chained pick dials through a front of its own tag, apart from the main connection’s', () => {
    const c = tunnelConfig({ ...base, core: xray, routing: routing('AI'), groups: [{ name: 'AI', pick: { server: named('us1', { via: 'f' }), via: named('f') } }] }) as unknown as Config;
    const pick = c.outbounds.find((o) => o.tag === 'group:AI')!;
    expect(pick.streamSettings?.sockopt?.dialerProxy).toBe(groupViaTag('AI'));
    // The front is the hop that leaves by the group's own dialer (its counters).
    expect(c.outbounds.find((o) => o.tag === 'group:AI/via')?.streamSettings?.sockopt?.dialerProxy).toBe(groupDialTag('AI'));
    expect(c.outbounds.find((o) => o.tag === 'group:AI/dial')?.protocol).toBe('freedom');
  });

  it('an unchained pick leaves by the group’s dialer itself', () => {
    const c = tunnelConfig({ ...base, core: xray, routing: routing('AI'), groups: [{ name: 'AI', pick: { server: named('us1') } }] }) as unknown as Config;
    expect(c.outbounds.find((o) => o.tag === 'group:AI')?.streamSettings?.sockopt?.dialerProxy).toBe(groupDialTag('AI'));
  });

  it('a group with no pick is a blackhole: its traffic fails rather than leave through the main server', () => {
    const c = tunnelConfig({ ...base, core: xray, routing: routing('AI'), groups: [{ name: 'AI', pick: null }] }) as unknown as Config;
    expect(c.outbounds.find((o) => o.tag === 'group:AI')?.protocol).toBe('blackhole');
  });

  it('a rule naming a group the config does not have is blocked (never a dangling tag the core refuses)', () => {
    const c = tunnelConfig({ ...base, core: xray, routing: routing('AI', 'Gone'), groups: [{ name: 'AI', pick: { server: named('us1') } }] }) as unknown as Config;
    expect(c.routing.rules.find((r) => r.domain?.includes('domain:gone.test'))?.outboundTag).toBe('block');
  });

  it('without groups nothing changes: StatsService alone, on every core', () => {
    for (const core of [xray, v2ray]) expect((tunnelConfig({ ...base, core }) as unknown as Config).api.services).toEqual(['StatsService']);
  });

  it('a pick the core cannot run refuses the config, naming the group', () => {
    const reality = { ...named('r'), security: { type: 'reality', sni: 'www.example.com', publicKey: 'Z84J2IelR9ch3k8VtlVhhs5ycBUlXA7wHBWcBrjqnAw', shortId: '6ba85179e30d4fc2' } } as Server;
    expect(() => tunnelConfig({ ...base, core: v2ray, routing: routing('AI'), groups: [{ name: 'AI', pick: { server: reality } }] })).toThrow(/the pick of the group "AI": not supported by v2ray 4.34.0: REALITY/);
  });
});
