/**
 * What system-wide mode changes on a Linux machine, as data: an nftables table of our own and,
 * for TPROXY, a policy-routing rule and table that hand marked packets to the local stack. Pure:
 * the helper that runs these as root and the tests read the same builders.
 *
 * TPROXY (TCP and UDP), after the Xray project's documented nftables recipe:
 *   output     (route hook): a new packet of this machine is marked ROUTE_MARK unless it is the
 *                core's own (CORE_MARK, set by the core on its sockets), addressed to this machine,
 *                or to a bypassed range; the mark reroutes it through table ROUTE_TABLE …
 *   ip rule    fwmark ROUTE_MARK → table ROUTE_TABLE, whose only route is `local default dev lo`:
 *                the packet comes back in on lo …
 *   prerouting (filter hook): … where TPROXY hands it, original destination intact, to the core's
 *                transparent inbound; packets of established transparent sockets are marked too.
 * REDIRECT (TCP only, where the kernel has no TPROXY): a NAT output chain with the same
 *   exceptions rewrites the destination to the inbound; no routing changes.
 * DNS (port 53) is captured even to a LAN resolver: the machine's lookups go through the core.
 * IPv6 (policy/ipv6-capture.ts): a filter chain, `ipv6_gate`, passes the same exceptions and jumps
 *   to `ipv6_verdict`, which is empty while the server carries IPv6 (it is captured like IPv4) and
 *   otherwise refuses the packet at once (TCP reset, ICMPv6 "administratively prohibited"), so a
 *   dual-stack program falls back to IPv4 through the tunnel. A filter chain, because neither the
 *   route chain nor REDIRECT's NAT chain may reject; only the verdict chain changes when an Auto
 *   switch lands on a server that differs (ipv6VerdictCommand, one nftables transaction).
 */
import type { CaptureMethod, Ipv6Capture } from '../../../core/transparent';
import { type NftPerApp, nftPerAppChains, nftPerAppLines } from '../../per-app/policy/nft-rules';

export interface CapturePlan {
  method: CaptureMethod;
  /** The core's transparent inbound (127.0.0.1 and ::1). */
  port: number;
  /** The mark the core puts on its own sockets: those packets are never captured. */
  coreMark: number;
  /** Leave private and LAN ranges direct (DNS to them is still captured). */
  bypassLan: boolean;
  /** Per-app choice: whose packets bypass, or the only ones captured (per-app/policy/nft-rules.ts). */
  perApp?: NftPerApp | null;
  /** The current server's IPv6: captured like IPv4, or refused at once (absent: refused). */
  ipv6?: Ipv6Capture;
}

/** Fixed names: one table and one routing table that are ours alone, found again after a crash. */
export const CAPTURE_TABLE = 'steadfast_vpn';
export const ROUTE_MARK = 0x5346;
export const ROUTE_TABLE = 5346;
export const DEFAULT_CORE_MARK = 0x5347;
export const IPV6_VERDICT_CHAIN = 'ipv6_verdict';

/** Never captured: this machine, link-local, multicast and broadcast. */
export const ALWAYS_DIRECT = {
  ipv4: ['0.0.0.0/8', '127.0.0.0/8', '169.254.0.0/16', '224.0.0.0/4', '255.255.255.255/32'],
  ipv6: ['::/128', '::1/128', 'fe80::/10', 'ff00::/8'],
} as const;

/** Private and shared ranges (RFC 1918, CGNAT, unique local): direct when `bypassLan` is on. */
export const LAN_RANGES = {
  ipv4: ['10.0.0.0/8', '100.64.0.0/10', '172.16.0.0/12', '192.168.0.0/16'],
  ipv6: ['fc00::/7'],
} as const;

export interface ArgvCommand {
  file: string;
  args: string[];
  /** Written to the command's standard input (the nftables ruleset). */
  input?: string;
}

const hex = (n: number) => `0x${n.toString(16).padStart(8, '0')}`;

function bypassSets(plan: CapturePlan): string[] {
  const v4 = [...ALWAYS_DIRECT.ipv4, ...(plan.bypassLan ? LAN_RANGES.ipv4 : [])];
  const v6 = [...ALWAYS_DIRECT.ipv6, ...(plan.bypassLan ? LAN_RANGES.ipv6 : [])];
  return [
    `  set direct4 { type ipv4_addr; flags interval; elements = { ${v4.join(', ')} } }`,
    `  set direct6 { type ipv6_addr; flags interval; elements = { ${v6.join(', ')} } }`,
  ];
}

/** The exceptions every captured packet passes first, in order. */
function exceptions(plan: CapturePlan, capture: string): string[] {
  return [
    `    meta mark ${hex(plan.coreMark)} return`,
    ...nftPerAppLines(plan.perApp),
    '    fib daddr type local return',
    `    meta l4proto { tcp, udp } th dport 53 ${capture}`,
    '    ip daddr @direct4 return',
    '    ip6 daddr @direct6 return',
  ];
}

/** The verdict chain's rules: nothing while IPv6 is captured; a fast refusal while it is blocked. */
export function ipv6VerdictRules(ipv6: Ipv6Capture | undefined): string[] {
  return ipv6 === 'capture' ? [] : ['meta l4proto tcp reject with tcp reset', 'reject with icmpx admin-prohibited'];
}

/**
 * The IPv6 gate: the capture's exceptions (the core's own packets, this machine, the bypassed
 * ranges; DNS stays captured, into the core) pass, the rest goes to the verdict.
 */
function ipv6Chains(plan: CapturePlan): string[] {
  return [
    '  chain ipv6_gate {',
    '    type filter hook output priority filter; policy accept;',
    '    meta nfproto != ipv6 return',
    ...exceptions(plan, 'return').filter((line) => !line.includes('@direct4')),
    `    jump ${IPV6_VERDICT_CHAIN}`,
    '  }',
    `  chain ${IPV6_VERDICT_CHAIN} {`,
    ...ipv6VerdictRules(plan.ipv6).map((rule) => `    ${rule}`),
    '  }',
  ];
}

/** Changes only the IPv6 verdict of the capture in place (an Auto switch to a server that differs). */
export function ipv6VerdictCommand(ipv6: Ipv6Capture): ArgvCommand {
  const lines = [`flush chain inet ${CAPTURE_TABLE} ${IPV6_VERDICT_CHAIN}`, ...ipv6VerdictRules(ipv6).map((rule) => `add rule inet ${CAPTURE_TABLE} ${IPV6_VERDICT_CHAIN} ${rule}`), ''];
  return { file: 'nft', args: ['-f', '-'], input: lines.join('\n') };
}

/** The nftables ruleset (for `nft -f -`), one table created from nothing. */
export function captureRuleset(plan: CapturePlan): string {
  assertPlan(plan);
  const lines = [`table inet ${CAPTURE_TABLE} {`, ...bypassSets(plan)];
  if (plan.method === 'tproxy') {
    const mark = `meta mark set ${hex(ROUTE_MARK)} accept`;
    lines.push(
      '  chain output {',
      '    type route hook output priority mangle; policy accept;',
      ...exceptions(plan, mark),
      `    meta l4proto { tcp, udp } ${mark}`,
      '  }',
      '  chain prerouting {',
      '    type filter hook prerouting priority mangle; policy accept;',
      `    meta l4proto tcp socket transparent 1 meta mark set ${hex(ROUTE_MARK)} accept`,
      `    meta mark != ${hex(ROUTE_MARK)} return`,
      `    meta l4proto { tcp, udp } meta nfproto ipv4 tproxy ip to 127.0.0.1:${plan.port} accept`,
      `    meta l4proto { tcp, udp } meta nfproto ipv6 tproxy ip6 to [::1]:${plan.port} accept`,
      '  }',
    );
  } else {
    const redirect = `redirect to :${plan.port}`;
    lines.push(
      '  chain output {',
      '    type nat hook output priority -100; policy accept;',
      ...exceptions(plan, `meta l4proto tcp ${redirect}`).filter((line) => !line.includes('th dport 53')),
      `    meta l4proto tcp th dport 53 ${redirect}`,
      `    meta l4proto tcp ${redirect}`,
      '  }',
    );
  }
  lines.push(...ipv6Chains(plan), ...nftPerAppChains(plan.perApp), '}', '');
  return lines.join('\n');
}

/** Everything that turns capture on, in order. Run after `removalCommands` (leftovers go first). */
export function applyCommands(plan: CapturePlan): ArgvCommand[] {
  const commands: ArgvCommand[] = [{ file: 'nft', args: ['-f', '-'], input: captureRuleset(plan) }];
  if (plan.method === 'tproxy') {
    for (const family of ['-4', '-6'] as const) {
      commands.push(
        { file: 'ip', args: [family, 'rule', 'add', 'fwmark', String(ROUTE_MARK), 'lookup', String(ROUTE_TABLE)] },
        { file: 'ip', args: [family, 'route', 'add', 'local', family === '-4' ? '0.0.0.0/0' : '::/0', 'dev', 'lo', 'table', String(ROUTE_TABLE)] },
      );
    }
  }
  return commands;
}

/**
 * Everything that turns capture off, whatever was applied (method unknown after a crash). Each
 * one may fail because its object is already gone; that is success.
 */
export function removalCommands(): ArgvCommand[] {
  const commands: ArgvCommand[] = [{ file: 'nft', args: ['delete', 'table', 'inet', CAPTURE_TABLE] }];
  for (const family of ['-4', '-6'] as const) {
    commands.push(
      { file: 'ip', args: [family, 'rule', 'del', 'fwmark', String(ROUTE_MARK), 'lookup', String(ROUTE_TABLE)] },
      { file: 'ip', args: [family, 'route', 'flush', 'table', String(ROUTE_TABLE)] },
    );
  }
  return commands;
}

/** An error from a removal command that only says the object was not there. */
export function isAlreadyGone(stderr: string): boolean {
  return /No such file or directory|does not exist|Cannot find|No such process|FIB table does not exist/i.test(stderr);
}

/** Checks what reaches the ruleset text: numbers only, in range (the helper re-checks its input). */
function assertPlan(plan: CapturePlan): void {
  if (!Number.isInteger(plan.port) || plan.port < 1 || plan.port > 65535) throw new Error(`invalid capture port ${String(plan.port)}`);
  if (!Number.isInteger(plan.coreMark) || plan.coreMark < 1 || plan.coreMark > 0xffffffff || plan.coreMark === ROUTE_MARK) {
    throw new Error(`invalid core mark ${String(plan.coreMark)}`);
  }
  if (plan.method !== 'tproxy' && plan.method !== 'redirect') throw new Error(`unknown capture method ${String(plan.method)}`);
  if (plan.ipv6 !== undefined && plan.ipv6 !== 'capture' && plan.ipv6 !== 'block') throw new Error(`unknown IPv6 handling ${String(plan.ipv6)}`);
}
