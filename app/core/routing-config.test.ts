import { describe, expect, it } from 'vitest';
import { profileFromTable } from './testing/profile';
import { type CoreRouting, DNS_TAG, routingSections } from './routing-config';
import { sampleServer } from './samples';
import { tunnelConfig } from './tunnel-config';

const tags = { proxy: 'proxy', direct: 'direct', block: 'block' };
const plan = (over: Partial<CoreRouting> = {}, dns: Partial<CoreRouting['dns']> = {}): CoreRouting => ({
  domainStrategy: 'IPIfNonMatch',
  routes: [{ outbound: 'direct', domain: ['domain:ir'] }],
  hosts: {},
  ...over,
  dns: { remote: 'https://1.1.1.1/dns-query', domestic: '192.0.2.53', directDomains: ['domain:ir', 'domain:рф'], ...dns },
});
const v2ray434 = profileFromTable('v2ray', '4.34.0');
const xray = profileFromTable('xray', '25.10.15');

describe('the DNS module keeps proxied names private', () => {
  it('a core with skipFallback: the domestic resolver answers only the direct names; everything else goes to the remote one through the server', () => {
    const s = routingSections(plan(), xray, tags);
    expect(s.dns).toEqual({
      tag: DNS_TAG,
      hosts: {},
      servers: ['https://1.1.1.1/dns-query', { address: '192.0.2.53', port: 53, domains: ['domain:ir', 'domain:xn--p1ai'], skipFallback: true }],
    });
    // The module's own queries: the domestic resolver directly, all others through the server.
    expect(s.rules.slice(0, 2)).toEqual([
      { type: 'field', inboundTag: [DNS_TAG], ip: ['192.0.2.53'], port: '53', outboundTag: 'direct' },
      { type: 'field', inboundTag: [DNS_TAG], outboundTag: 'proxy' },
    ]);
    expect(s.notices).toEqual([]);
  });

  it('v2ray 4.34 resolving for routing: no domestic resolver at all (it would be asked about proxied names when the remote is slow), and it says so', () => {
    const s = routingSections(plan(), v2ray434, tags);
    expect((s.dns as { servers: unknown[] }).servers).toEqual(['https://1.1.1.1/dns-query']);
    expect(JSON.stringify(s.rules)).not.toContain('192.0.2.53');
    expect(s.notices).toEqual([
      'v2ray 4.34.0 asks every resolver when one is slow (skipFallback needs v2ray 4.37 or Xray), so the domestic resolver could hear about proxied sites: names of direct traffic are resolved by the remote resolver through the server instead',
    ]);
  });

  it('v2ray 4.34 with AsIs: only direct traffic asks the DNS module, so the domestic resolver answers first', () => {
    const s = routingSections(plan({ domainStrategy: 'AsIs' }), v2ray434, tags);
    expect((s.dns as { servers: unknown[] }).servers).toEqual([{ address: '192.0.2.53', port: 53 }, 'https://1.1.1.1/dns-query']);
    expect(s.notices).toEqual([]);
  });

  it('the system resolver is the core’s `localhost`, which needs no routing rule; a plain remote resolver is an address', () => {
    const s = routingSections(plan({}, { domestic: 'system', remote: '8.8.8.8:5353' }), xray, tags);
    expect((s.dns as { servers: unknown[] }).servers).toEqual([
      { address: '8.8.8.8', port: 5353 },
      { address: 'localhost', domains: ['domain:ir', 'domain:xn--p1ai'], skipFallback: true },
    ]);
    expect(s.rules[0]).toEqual({ type: 'field', inboundTag: [DNS_TAG], outboundTag: 'proxy' });
  });

  it('direct traffic resolves through the DNS module (so hosts and the domestic resolver apply); block answers at once', () => {
    const config = tunnelConfig({ server: sampleServer('vmess'), core: v2ray434, listen: '127.0.0.1', httpPort: 1, socksPort: 2, apiPort: 3, routing: plan() });
    const outbounds = config.outbounds as { tag: string; settings: unknown }[];
    expect(outbounds.find((o) => o.tag === 'direct')?.settings).toEqual({ domainStrategy: 'UseIP' });
    expect(outbounds.find((o) => o.tag === 'block')?.settings).toEqual({ response: { type: 'http' } });
    expect(outbounds[0]?.tag).toBe('proxy');
    expect((config.routing as { domainStrategy: string }).domainStrategy).toBe('IPIfNonMatch');
  });

  it('without routing the tunnel stays as it was: everything to the server, no DNS module, no sniffing', () => {
    const config = tunnelConfig({ server: sampleServer('vmess'), core: v2ray434, listen: '127.0.0.1', httpPort: 1, socksPort: 2, apiPort: 3 });
    expect(config).not.toHaveProperty('dns');
    expect((config.routing as { rules: unknown[] }).rules).toHaveLength(1);
    expect(JSON.stringify(config.inbounds)).not.toContain('sniffing');
  });

  it('system-wide: programs’ captured DNS queries go through the server even to a LAN resolver', async () => {
    const { firstMatch } = await import('../routing/testing/first-match');
    const lan = plan({ routes: [{ outbound: 'direct', ip: ['192.168.0.0/16'] }] });
    const base = { server: sampleServer('vmess'), core: v2ray434, listen: '127.0.0.1', httpPort: 1, socksPort: 2, apiPort: 3, routing: lan };
    const captured = tunnelConfig({ ...base, transparent: { port: 4, directPort: 5, method: 'tproxy', mark: 255 } });
    expect(firstMatch(captured, { inboundTag: 'transparent-in', ip: '192.168.1.1', port: 53 })).toBe('proxy');
    expect(firstMatch(captured, { inboundTag: 'transparent-in', ip: '192.168.1.1', port: 80 })).toBe('direct');
    expect(firstMatch(tunnelConfig(base), { inboundTag: 'socks-in', ip: '192.168.1.1', port: 53 })).toBe('direct');
  });
});
