import { describe, expect, it } from 'vitest';
import { KILL_SWITCH_TABLE, killSwitchOffCommand, killSwitchOnCommand, killSwitchRuleset, MAX_SERVER_ADDRESSES, serverAddresses } from './kill-switch-rules';

/** The rule lines of a chain, in order, as nft reads them. */
const chain = (ruleset: string, name: 'output' | 'postrouting') => {
  const lines = ruleset.split('\n').map((line) => line.trim());
  const first = lines.indexOf(`chain ${name} {`) + 2;
  return lines.slice(first, lines.indexOf('}', first));
};

describe('kill switch server addresses', () => {
  it.each([
    { servers: ['198.51.100.254'], ipv4: ['198.51.100.254'], ipv6: [] },
    { servers: ['2001:DB8::1', '198.51.100.7'], ipv4: ['198.51.100.7'], ipv6: ['2001:db8::1'] },
    { servers: ['192.0.2.1', '192.0.2.1', '2001:db8::1', '2001:DB8:0::1'], ipv4: ['192.0.2.1'], ipv6: ['2001:db8::1'] },
    { servers: [], ipv4: [], ipv6: [] },
  ])('$servers → v4 $ipv4, v6 $ipv6 (each once, IPv6 in its canonical form)', ({ servers, ipv4, ipv6 }) => {
    expect(serverAddresses(servers)).toEqual({ ipv4, ipv6 });
  });

  it.each([
    ['a host name', 'vpn.example.com'],
    ['a range', '192.0.2.0/24'],
    ['nft syntax smuggled in', '192.0.2.1 } ; flush ruleset ; {'],
    ['an IPv6 zone', 'fe80::1%eth0'],
    ['an empty string', ''],
  ])('refuses %s', (_, address) => {
    expect(() => serverAddresses([address])).toThrow(/not an IP address/);
  });

  it('refuses a list longer than any subscription', () => {
    const many = Array.from({ length: MAX_SERVER_ADDRESSES + 1 }, (_, i) => `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`);
    expect(() => serverAddresses(many)).toThrow(/too many server addresses/);
  });
});

describe('the kill switch ruleset', () => {
  const servers = ['198.51.100.254', '2001:db8::1'];

  it('replaces the table in one transaction, so a new list never leaves a moment without rules', () => {
    const lines = killSwitchRuleset({ servers, allowLan: false }).split('\n');
    expect(lines.slice(0, 3)).toEqual([`table inet ${KILL_SWITCH_TABLE}`, `delete table inet ${KILL_SWITCH_TABLE}`, `table inet ${KILL_SWITCH_TABLE} {`]);
    expect(killSwitchOnCommand({ servers, allowLan: false })).toEqual({ file: 'nft', args: ['-f', '-'], input: killSwitchRuleset({ servers, allowLan: false }) });
  });

  const allowed = (allowLan: boolean) => [
    'oifname "steadfast0" accept',
    'ip daddr @servers4 accept',
    'ip6 daddr @servers6 accept',
    ...(allowLan ? ['ip daddr @lan4 accept', 'ip6 daddr @lan6 accept'] : []),
    'udp sport 68 udp dport 67 accept',
    'meta nfproto ipv6 udp sport 546 udp dport 547 accept',
    'icmpv6 type { nd-router-solicit, nd-neighbor-solicit, nd-neighbor-advert, mld2-listener-report } accept',
  ];

  it.each([false, true])('allowLan %s, output: loopback, what the capture marked, the TUN device, the servers, the link, then a fast reject of the rest', (allowLan) => {
    expect(chain(killSwitchRuleset({ servers, allowLan }), 'output')).toEqual([
      'oif lo accept',
      'meta mark 0x00005346 accept',
      ...allowed(allowLan),
      'meta l4proto tcp counter name blocked reject with tcp reset',
      'counter name blocked reject with icmpx admin-prohibited',
    ]);
  });

  it.each([false, true])('allowLan %s, postrouting: the same without the mark (a marked packet not yet rerouted to lo is dropped)', (allowLan) => {
    expect(chain(killSwitchRuleset({ servers, allowLan }), 'postrouting')).toEqual(['oif lo accept', ...allowed(allowLan), 'counter name dropped drop']);
  });

  it('names the servers in their sets and the LAN only when it is allowed', () => {
    const closed = killSwitchRuleset({ servers, allowLan: false });
    expect(closed).toContain('set servers4 { type ipv4_addr; flags interval; elements = { 198.51.100.254 } }');
    expect(closed).toContain('set servers6 { type ipv6_addr; flags interval; elements = { 2001:db8::1 } }');
    expect(closed).not.toContain('192.168.0.0/16');
    const open = killSwitchRuleset({ servers, allowLan: true });
    expect(open).toContain('set lan4 { type ipv4_addr; flags interval; elements = { 10.0.0.0/8, 100.64.0.0/10, 172.16.0.0/12, 192.168.0.0/16 } }');
    expect(open).toContain('set lan6 { type ipv6_addr; flags interval; elements = { fc00::/7, fe80::/10 } }');
  });

  it('with no server known yet still blocks everything but loopback and the link (an empty set, not an empty element list)', () => {
    const ruleset = killSwitchRuleset({ servers: [], allowLan: false });
    expect(ruleset).toContain('set servers4 { type ipv4_addr; flags interval; }');
    expect(ruleset).not.toContain('elements = { }');
  });

  it('refuses a plan with a name in it rather than write it into the ruleset', () => {
    expect(() => killSwitchRuleset({ servers: ['vpn.example.com'], allowLan: false })).toThrow(/not an IP address/);
  });

  it('is turned off by deleting its own table, never the capture table', () => {
    expect(killSwitchOffCommand()).toEqual({ file: 'nft', args: ['delete', 'table', 'inet', 'steadfast_killswitch'] });
  });
});
