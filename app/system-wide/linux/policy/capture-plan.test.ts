import { describe, expect, it } from 'vitest';
import { applyCommands, captureRuleset, type CapturePlan, ipv6VerdictCommand, isAlreadyGone, removalCommands, ROUTE_MARK, ROUTE_TABLE } from './capture-plan';

const tproxy: CapturePlan = { method: 'tproxy', port: 10850, coreMark: 0x5347, bypassLan: true };
const redirect: CapturePlan = { ...tproxy, method: 'redirect' };

/** The rule lines of one chain, trimmed. */
function chain(ruleset: string, name: string): string[] {
  const start = ruleset.indexOf(`chain ${name} {`);
  if (start < 0) return [];
  const body = ruleset.slice(start, ruleset.indexOf('\n  }', start));
  return body.split('\n').slice(1).map((line) => line.trim());
}

describe('capture ruleset', () => {
  it.each([
    ['the core’s own packets pass first (no loop back into the core)', 'output', 0, 'meta mark 0x00005347 return'],
    ['then anything addressed to this machine', 'output', 1, 'fib daddr type local return'],
    ['DNS is captured before the LAN exception, so a LAN resolver is asked through the core', 'output', 2, 'meta l4proto { tcp, udp } th dport 53 meta mark set 0x00005346 accept'],
    ['bypassed IPv4 ranges pass', 'output', 3, 'ip daddr @direct4 return'],
    ['bypassed IPv6 ranges pass', 'output', 4, 'ip6 daddr @direct6 return'],
    ['everything else, TCP and UDP, is marked for the local route', 'output', 5, 'meta l4proto { tcp, udp } meta mark set 0x00005346 accept'],
    ['prerouting: only packets we rerouted are handed over', 'prerouting', 1, 'meta mark != 0x00005346 return'],
    ['IPv4 goes to the inbound on 127.0.0.1', 'prerouting', 2, 'meta l4proto { tcp, udp } meta nfproto ipv4 tproxy ip to 127.0.0.1:10850 accept'],
    ['IPv6 goes to the inbound on ::1', 'prerouting', 3, 'meta l4proto { tcp, udp } meta nfproto ipv6 tproxy ip6 to [::1]:10850 accept'],
  ])('TPROXY: %s', (_what, name, index, line) => {
    expect(chain(captureRuleset(tproxy), name)[index + 1]).toBe(line);
  });

  it('the output chain reroutes (route hook), prerouting hands over at mangle priority', () => {
    const ruleset = captureRuleset(tproxy);
    expect(chain(ruleset, 'output')[0]).toBe('type route hook output priority mangle; policy accept;');
    expect(chain(ruleset, 'prerouting')[0]).toBe('type filter hook prerouting priority mangle; policy accept;');
    expect(ruleset.startsWith('table inet steadfast_vpn {')).toBe(true);
  });

  it('bypassLan puts the private ranges in the direct sets; off, only this machine and link-local stay direct', () => {
    const on = captureRuleset(tproxy);
    const off = captureRuleset({ ...tproxy, bypassLan: false });
    for (const range of ['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', '100.64.0.0/10', 'fc00::/7']) {
      expect(on).toContain(range);
      expect(off).not.toContain(range);
    }
    for (const range of ['127.0.0.0/8', '169.254.0.0/16', '224.0.0.0/4', '::1/128', 'fe80::/10']) expect(off).toContain(range);
  });

  it('REDIRECT: a NAT output chain for TCP with the same exceptions, DNS over TCP included, no prerouting', () => {
    const ruleset = captureRuleset(redirect);
    expect(chain(ruleset, 'output')).toEqual([
      'type nat hook output priority -100; policy accept;',
      'meta mark 0x00005347 return',
      'fib daddr type local return',
      'ip daddr @direct4 return',
      'ip6 daddr @direct6 return',
      'meta l4proto tcp th dport 53 redirect to :10850',
      'meta l4proto tcp redirect to :10850',
    ]);
    expect(chain(ruleset, 'prerouting')).toEqual([]);
  });

  describe('IPv6', () => {
    const refusal = ['meta l4proto tcp reject with tcp reset', 'reject with icmpx admin-prohibited'];
    it.each([
      ['a server that carries IPv6: the verdict is empty, IPv6 is captured like IPv4', 'capture' as const, []],
      ['a server that does not: IPv6 is refused at once (TCP reset, ICMP) rather than captured', 'block' as const, refusal],
      ['nothing said: refused (never around the tunnel)', undefined, refusal],
    ])('TPROXY and REDIRECT, %s', (_what, ipv6, verdict) => {
      for (const plan of [tproxy, redirect]) expect(chain(captureRuleset({ ...plan, ipv6 }), 'ipv6_verdict')).toEqual(verdict);
    });

    it('the gate is a filter chain (the route and NAT chains may not reject) that passes the capture’s exceptions first', () => {
      expect(chain(captureRuleset({ ...tproxy, ipv6: 'block', bypassLan: true }), 'ipv6_gate')).toEqual([
        'type filter hook output priority filter; policy accept;',
        'meta nfproto != ipv6 return',
        'meta mark 0x00005347 return',
        'fib daddr type local return',
        'meta l4proto { tcp, udp } th dport 53 return',
        'ip6 daddr @direct6 return',
        'jump ipv6_verdict',
      ]);
    });

    it('per-app choice applies to IPv6 as to IPv4: a bypassing app is never refused', () => {
      const gate = chain(captureRuleset({ ...tproxy, ipv6: 'block', perApp: { mode: 'bypass', uids: [1001], cgroup: null } }), 'ipv6_gate');
      expect(gate.indexOf('meta skuid 1001 return')).toBeLessThan(gate.indexOf('jump ipv6_verdict'));
    });

    it('an Auto switch changes only the verdict, in one transaction', () => {
      expect(ipv6VerdictCommand('block').input).toBe(
        ['flush chain inet steadfast_vpn ipv6_verdict', ...refusal.map((rule) => `add rule inet steadfast_vpn ipv6_verdict ${rule}`), ''].join('\n'),
      );
      expect(ipv6VerdictCommand('capture').input).toBe('flush chain inet steadfast_vpn ipv6_verdict\n');
      expect(ipv6VerdictCommand('capture').args).toEqual(['-f', '-']);
    });
  });

  it('refuses a plan that would write something other than numbers into the ruleset', () => {
    expect(() => captureRuleset({ ...tproxy, port: 0 })).toThrow('invalid capture port');
    expect(() => captureRuleset({ ...tproxy, port: '1; flush ruleset' as unknown as number })).toThrow('invalid capture port');
    expect(() => captureRuleset({ ...tproxy, coreMark: ROUTE_MARK })).toThrow('invalid core mark');
    expect(() => captureRuleset({ ...tproxy, method: 'tun' as never })).toThrow('unknown capture method');
    expect(() => captureRuleset({ ...tproxy, ipv6: 'accept; flush ruleset' as never })).toThrow('unknown IPv6 handling');
  });
});

describe('apply and removal commands', () => {
  it('TPROXY: the table, then an IPv4 and an IPv6 rule sending marked packets to a local-only table', () => {
    const commands = applyCommands(tproxy);
    expect(commands[0]).toEqual({ file: 'nft', args: ['-f', '-'], input: captureRuleset(tproxy) });
    expect(commands.slice(1).map((c) => [c.file, ...c.args].join(' '))).toEqual([
      `ip -4 rule add fwmark ${ROUTE_MARK} lookup ${ROUTE_TABLE}`,
      `ip -4 route add local 0.0.0.0/0 dev lo table ${ROUTE_TABLE}`,
      `ip -6 rule add fwmark ${ROUTE_MARK} lookup ${ROUTE_TABLE}`,
      `ip -6 route add local ::/0 dev lo table ${ROUTE_TABLE}`,
    ]);
  });

  it('REDIRECT changes no routing', () => {
    expect(applyCommands(redirect).map((c) => c.file)).toEqual(['nft']);
  });

  it('removal takes away every trace whichever method was used', () => {
    expect(removalCommands().map((c) => [c.file, ...c.args].join(' '))).toEqual([
      'nft delete table inet steadfast_vpn',
      `ip -4 rule del fwmark ${ROUTE_MARK} lookup ${ROUTE_TABLE}`,
      `ip -4 route flush table ${ROUTE_TABLE}`,
      `ip -6 rule del fwmark ${ROUTE_MARK} lookup ${ROUTE_TABLE}`,
      `ip -6 route flush table ${ROUTE_TABLE}`,
    ]);
  });

  it.each([
    ['Error: Could not process rule: No such file or directory', true],
    ['RTNETLINK answers: No such file or directory', true],
    ['Error: ipv4: FIB table does not exist.', true],
    ['Error: Could not process rule: Operation not permitted', false],
  ])('"%s" means already gone: %s', (stderr, gone) => {
    expect(isAlreadyGone(stderr)).toBe(gone);
  });
});
