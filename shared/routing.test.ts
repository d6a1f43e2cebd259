import { describe, expect, it } from 'vitest';
import { dnsSettingsSchema, routingFileSchema, routingIssueText, routingSettingsSchema } from './routing';
import { settingsSchema } from './settings';

const issuesOf = (routing: unknown) => {
  const parsed = routingSettingsSchema.safeParse(routing);
  return parsed.success ? [] : routingIssueText(parsed.error);
};

describe('routing settings', () => {
  it('defaults: global, LAN direct, no ad blocking, names resolved through the tunnel, the system resolver for direct names', () => {
    const s = settingsSchema.parse({});
    expect(s.routing).toEqual({ preset: 'global', bypassLan: true, blockAds: false, domainStrategy: 'IPIfNonMatch', rules: [], hosts: {}, ruleSets: [] });
    expect(s.dns).toEqual({ remote: 'https://1.1.1.1/dns-query', domestic: 'system' });
  });

  it('accepts rules in the core syntax, port lists and ranges, IPv4 and IPv6 blocks, names in any script', () => {
    const parsed = routingSettingsSchema.parse({
      preset: 'ru',
      rules: [
        { domain: ['domain:bank.ir', 'full:www.example.com', 'keyword:shop', 'regexp:^ads\\.', 'example.org', 'domain:банк.рф'], outbound: 'direct' },
        { ip: ['10.1.0.0/16', '2001:db8::/32', '192.0.2.7'], port: '80,443,1000-2000', outbound: 'block' },
        { port: '53', network: 'udp', outbound: 'proxy' },
      ],
      hosts: { 'bank.ir': '127.0.0.200', 'full:intranet.example': 'other.example' },
    });
    expect(parsed.rules).toHaveLength(3);
  });

  it.each([
    [{ rules: [{ ip: ['10.0.0/8'], outbound: 'direct' }] }, 'rule 1, ip 1: "10.0.0/8" is not an IP address or CIDR block'],
    [{ rules: [{ ip: ['1.2.3.4'], outbound: 'direct' }, { ip: ['10.0.0.0/33'], outbound: 'direct' }] }, 'rule 2, ip 1: "10.0.0.0/33" has a prefix length outside 0-32'],
    [{ rules: [{ ip: ['fe80::/129'], outbound: 'direct' }] }, 'rule 1, ip 1: "fe80::/129" has a prefix length outside 0-128'],
    [{ rules: [{ domain: ['a.com'], outbound: 'tunnel' }] }, 'rule 1, outbound: unknown outbound "tunnel": use proxy, direct, block'],
    [{ rules: [{ domain: ['geosite:cn'], outbound: 'direct' }] }, 'rule 1, domain 1: "geosite:cn" names a geosite list'],
    [{ rules: [{ domain: ['full:a..b'], outbound: 'direct' }] }, 'rule 1, domain 1: "full:a..b" is not a host name'],
    [{ rules: [{ domain: ['regexp:(?!x)y'], outbound: 'direct' }] }, 'look-around'],
    [{ rules: [{ domain: ['regexp:(['], outbound: 'direct' }] }, 'is not a valid regular expression'],
    [{ rules: [{ port: '2000-1000', outbound: 'direct' }] }, 'rule 1, port: "2000-1000" has "2000-1000", which runs backwards'],
    [{ rules: [{ port: '0', outbound: 'direct' }] }, 'outside 1-65535'],
    [{ rules: [{ outbound: 'direct' }] }, 'rule 1: matches nothing'],
    [{ rules: [{ domain: ['a.com'], outbound: 'direct', via: 'x' }] }, 'rule 1: Unrecognized key: "via"'],
    [{ hosts: { 'bank.ir': 'not an address' } }, 'hosts "bank.ir": "not an address" is not an IP address or host name'],
    [{ preset: 'de' }, 'preset'],
  ])('names the entry at fault: %j', (routing, expected) => {
    expect(issuesOf(routing).join('\n')).toContain(expected);
  });

  it('refuses more rules or entries than the limits (a 10 MB rules file)', () => {
    const huge = { rules: Array.from({ length: 600 }, () => ({ ip: ['10.0.0.0/8'], outbound: 'direct' })) };
    expect(issuesOf(huge).join()).toBe("rules: holds 600 rules; at most 500");
    const crowded = { rules: [{ domain: Array.from({ length: 6000 }, (_, i) => `d${i}.example`), outbound: 'direct' }] };
    expect(issuesOf(crowded).join()).toBe("rule 1, domain: holds 6000 names; at most 5000");
    const many = { rules: Array.from({ length: 5 }, () => ({ ip: Array.from({ length: 4500 }, () => '10.0.0.0/8'), outbound: 'direct' })) };
    expect(issuesOf(many).join()).toBe('rules: hold more than 20000 names and addresses in all');
  });

  it('dns: DoH URLs or resolver addresses; the domestic one `system` or an address', () => {
    expect(dnsSettingsSchema.parse({ remote: '8.8.8.8:53', domestic: '127.0.0.53:5353' })).toEqual({ remote: '8.8.8.8:53', domestic: '127.0.0.53:5353' });
    expect(dnsSettingsSchema.parse({ remote: 'https://dns.google/dns-query' }).remote).toBe('https://dns.google/dns-query');
    const bad = dnsSettingsSchema.safeParse({ remote: 'tls://1.1.1.1', domestic: 'my-isp' });
    expect(bad.success ? [] : routingIssueText(bad.error)).toEqual([
      'remote: "tls://1.1.1.1" is neither a DNS-over-HTTPS URL (https://…) nor a resolver address',
      'domestic: "my-isp" is not an IP address (optionally with :port)',
    ]);
  });

  it('a routing file holds the routing section and optionally dns, nothing else', () => {
    expect(routingFileSchema.safeParse({ routing: { preset: 'ir' } }).success).toBe(true);
    expect(routingFileSchema.safeParse({ routing: {}, dns: { domestic: '127.0.0.1' } }).success).toBe(true);
    expect(routingFileSchema.safeParse({ routing: {}, extra: 1 }).success).toBe(false);
  });
});
