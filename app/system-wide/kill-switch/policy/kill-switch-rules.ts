/**
 * The Linux kill switch as data: one nftables table of its own, separate from system-wide mode's
 * capture table, so removing the capture (disconnect, crash cleanup, the helper's watchdog) never
 * touches it. Pure: the privileged helper and the tests read the same builders.
 *
 * In the spirit of Mullvad's lockdown mode, a packet leaves only
 *   - through loopback: the local proxies, and every packet system-wide mode captures (TPROXY and
 *     REDIRECT hand them to the core over lo);
 *   - through sing-box's TUN device (Linux's other capture);
 *   - to a server address of the allow list (every server Auto may switch to, so a switch never
 *     needs the rules changed first);
 *   - to the LAN ranges, when the user allows it;
 *   - on the link itself: DHCP and IPv6 router and neighbour discovery, without which no server
 *     is reachable after the network comes back.
 * Anything else is rejected in the output hook — a TCP reset, or ICMP "administratively
 * prohibited" — so a program fails at once rather than waiting out a timeout, and a dual-stack
 * program falls back quickly; the postrouting hook, where a packet's device is final, drops
 * whatever got past that (see the chains' comments).
 * The rules hold no process, device state or address of this machine's interfaces: they stay
 * right while the app is gone, the core restarts or the network drops and comes back.
 */
import { formatIpv4, formatIpv6, parseIpv4, parseIpv6 } from '../../../../shared/cidr';
import type { ArgvCommand } from '../../linux/policy/capture-plan';
import { LAN_RANGES, ROUTE_MARK } from '../../linux/policy/capture-plan';

export const KILL_SWITCH_TABLE = 'steadfast_killswitch';
/** sing-box's device in Linux's TUN capture (tun/policy/sing-box-tun.ts LINUX_TUN). */
export const TUN_DEVICE = 'steadfast0';
/** More than any subscription holds; the helper refuses larger lists rather than build huge rulesets. */
export const MAX_SERVER_ADDRESSES = 4096;

export interface KillSwitchPlan {
  /** The servers' addresses, IPv4 and IPv6 literals (host names are resolved before). */
  servers: readonly string[];
  /** Leave private and LAN ranges reachable outside the tunnel. */
  allowLan: boolean;
}

/** Always allowed on the link: DHCP, DHCPv6 and the ICMPv6 the link needs to work at all. */
const LINK_RULES = [
  '    udp sport 68 udp dport 67 accept',
  '    meta nfproto ipv6 udp sport 546 udp dport 547 accept',
  '    icmpv6 type { nd-router-solicit, nd-neighbor-solicit, nd-neighbor-advert, mld2-listener-report } accept',
];

const hex = (n: number) => `0x${n.toString(16).padStart(8, '0')}`;

function set(name: string, type: 'ipv4_addr' | 'ipv6_addr', elements: readonly string[]): string {
  const list = elements.length > 0 ? ` elements = { ${elements.join(', ')} }` : '';
  return `  set ${name} { type ${type}; flags interval;${list} }`;
}

/** The servers' addresses split by family, each once, in the order given; throws on anything else. */
export function serverAddresses(servers: readonly string[]): { ipv4: string[]; ipv6: string[] } {
  if (servers.length > MAX_SERVER_ADDRESSES) throw new Error(`too many server addresses (${servers.length}, at most ${MAX_SERVER_ADDRESSES})`);
  const ipv4: string[] = [];
  const ipv6: string[] = [];
  for (const address of servers) {
    // Written back in canonical form: the same address is one element, whatever its spelling.
    const v4 = parseIpv4(address);
    const v6 = v4 === null ? parseIpv6(address) : null;
    if (v4 !== null) {
      const text = formatIpv4(v4);
      if (!ipv4.includes(text)) ipv4.push(text);
    } else if (v6 !== null) {
      const text = formatIpv6(v6);
      if (!ipv6.includes(text)) ipv6.push(text);
    } else {
      throw new Error(`not an IP address: ${JSON.stringify(address.slice(0, 80))}`);
    }
  }
  return { ipv4, ipv6 };
}

/**
 * The ruleset for `nft -f -`. It replaces a table already there in the same transaction (the
 * empty `table` line makes the `delete` valid when there is none), so changing the server list
 * never leaves a moment without rules.
 */
export function killSwitchRuleset(plan: KillSwitchPlan): string {
  const { ipv4, ipv6 } = serverAddresses(plan.servers);
  const lines = [
    `table inet ${KILL_SWITCH_TABLE}`,
    `delete table inet ${KILL_SWITCH_TABLE}`,
    `table inet ${KILL_SWITCH_TABLE} {`,
    set('servers4', 'ipv4_addr', ipv4),
    set('servers6', 'ipv6_addr', ipv6),
  ];
  if (plan.allowLan) lines.push(set('lan4', 'ipv4_addr', LAN_RANGES.ipv4), set('lan6', 'ipv6_addr', [...LAN_RANGES.ipv6, 'fe80::/10']));
  const allowed = [
    `    oifname "${TUN_DEVICE}" accept`,
    '    ip daddr @servers4 accept',
    '    ip6 daddr @servers6 accept',
    ...(plan.allowLan ? ['    ip daddr @lan4 accept', '    ip6 daddr @lan6 accept'] : []),
    ...LINK_RULES,
  ];
  lines.push(
    '  counter blocked { }',
    '  counter dropped { }',
    // The fast answer: a program is refused at once. The output hook still sees a captured packet
    // with the device it had before the capture rerouted it to lo, so the capture's mark passes here…
    '  chain output {',
    '    type filter hook output priority filter; policy accept;',
    '    oif lo accept',
    `    meta mark ${hex(ROUTE_MARK)} accept`,
    ...allowed,
    '    meta l4proto tcp counter name blocked reject with tcp reset',
    '    counter name blocked reject with icmpx admin-prohibited',
    '  }',
    // … and the gate is where the device is final. A mark alone is no pass: while the capture is
    // being put in, a marked packet is routed out of the machine until the policy rule that sends
    // it to lo is there. Whatever leaves by any other device than lo is dropped here.
    '  chain postrouting {',
    '    type filter hook postrouting priority filter; policy accept;',
    '    oif lo accept',
    ...allowed,
    '    counter name dropped drop',
    '  }',
    '}',
    '',
  );
  return lines.join('\n');
}

/** Turns the kill switch on, or changes its list (atomically). */
export function killSwitchOnCommand(plan: KillSwitchPlan): ArgvCommand {
  return { file: 'nft', args: ['-f', '-'], input: killSwitchRuleset(plan) };
}

/** Turns it off; failing because the table is not there means it already was off. */
export function killSwitchOffCommand(): ArgvCommand {
  return { file: 'nft', args: ['delete', 'table', 'inet', KILL_SWITCH_TABLE] };
}
