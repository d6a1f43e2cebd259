/**
 * The kill switch on Windows and macOS, as data (unit-tested here; not run: there is no Windows or
 * macOS machine in the tests). Two layers, as the design in the README says:
 *
 * - while connected, sing-box's TUN with `strict_route` (already how system-wide mode runs there)
 *   takes every program's traffic; with the kill switch the core's own connections may leave
 *   directly only to the servers, the loopback "direct" inbound (the monitor's network check) is
 *   refused, and the LAN goes around the TUN only when the user allows it (`withKillSwitch`);
 * - strict route ends with sing-box: while the app is gone, the core restarts or sing-box is
 *   stopped, the platform firewall holds the same allow list — Windows Firewall with outbound
 *   blocked by default and allow rules of our own group, macOS pf rules in an anchor of our own
 *   under `com.apple/` (which the system's pf.conf already loads). Both stay until turned off.
 */
import { LAN_RANGES } from '../../linux/policy/capture-plan';
import { serverAddresses } from './kill-switch-rules';

export interface PlatformKillSwitchPlan {
  servers: readonly string[];
  allowLan: boolean;
}

export interface ArgvStep {
  file: string;
  args: string[];
  input?: string;
}

/** The TUN device's own addresses (sing-box-tun.ts): what a program sends into the TUN comes from them. */
export const TUN_ADDRESSES = { ipv4: '172.19.0.1', ipv6: 'fdfe:dcba:9876::1' } as const;

// ---- sing-box, while connected ----

type Rule = Record<string, unknown>;
type TunConfig = { inbounds: Rule[]; route: { rules: Rule[] } & Record<string, unknown> } & Record<string, unknown>;

/**
 * The TUN config (singBoxTunConfig's output) with the kill switch's limits: the core's own
 * connections go direct only to the servers (anything else it dials directly — a routing rule's
 * `direct` — is refused), the direct inbound is refused, and the LAN stays off the device only
 * when allowed. A new object; the input is not changed.
 */
export function withKillSwitch(config: TunConfig, plan: PlatformKillSwitchPlan): TunConfig {
  const { ipv4, ipv6 } = serverAddresses(plan.servers);
  const servers = [...ipv4.map((a) => `${a}/32`), ...ipv6.map((a) => `${a}/128`)];
  const rules: Rule[] = [];
  for (const rule of config.route.rules) {
    if (Array.isArray(rule.process_path) && rule.outbound === 'direct') {
      // The core to a server: direct; the core anywhere else: refused (never to the TUN, which
      // would loop it back into the core).
      if (servers.length > 0) rules.push({ ...rule, ip_cidr: servers });
      rules.push({ process_path: rule.process_path, action: 'reject' });
    } else if (Array.isArray(rule.inbound) && rule.outbound === 'direct') {
      rules.push({ inbound: rule.inbound, action: 'reject' });
    } else if (rule.ip_is_private === true && !plan.allowLan) {
      continue;
    } else {
      rules.push(rule);
    }
  }
  const inbounds = config.inbounds.map((inbound) => {
    if (inbound.type !== 'tun') return inbound;
    const { route_exclude_address: excluded, ...rest } = inbound;
    return { ...rest, strict_route: true, ...(plan.allowLan && excluded !== undefined ? { route_exclude_address: excluded } : {}) };
  });
  return { ...config, inbounds, route: { ...config.route, rules } };
}

// ---- Windows Firewall, for when sing-box is not running ----

export const WINDOWS_RULE_GROUP = 'Steadfast VPN kill switch';

/** What the outbound default was before (`netsh advfirewall show allprofiles firewallpolicy`), put back at off. */
export type WindowsOutboundDefault = 'allowoutbound' | 'blockoutbound';

const netsh = (...args: string[]): ArgvStep => ({ file: 'netsh', args: ['advfirewall', ...args] });
const allowOut = (name: string, ...conditions: string[]): ArgvStep =>
  netsh('firewall', 'add', 'rule', `name=${WINDOWS_RULE_GROUP}: ${name}`, 'dir=out', 'action=allow', 'enable=yes', 'profile=any', ...conditions);

/**
 * Allow rules first, then the default turned to block, so no moment blocks what must pass. A
 * block rule would win over every allow rule in Windows Firewall: hence the default, not a rule.
 * Loopback is never filtered by Windows Firewall.
 */
export function windowsKillSwitchOn(plan: PlatformKillSwitchPlan): ArgvStep[] {
  const { ipv4, ipv6 } = serverAddresses(plan.servers);
  // Our rules of an earlier run go first: the list is replaced, not added to.
  const steps: ArgvStep[] = [windowsRemoveRules()];
  const servers = [...ipv4, ...ipv6];
  if (servers.length > 0) steps.push(allowOut('servers', `remoteip=${servers.join(',')}`));
  steps.push(allowOut('TUN', `localip=${TUN_ADDRESSES.ipv4},${TUN_ADDRESSES.ipv6}`));
  if (plan.allowLan) steps.push(allowOut('LAN', `remoteip=${[...LAN_RANGES.ipv4, ...LAN_RANGES.ipv6, '169.254.0.0/16', 'fe80::/10'].join(',')}`));
  steps.push(allowOut('DHCP', 'protocol=udp', 'localport=68', 'remoteport=67'), allowOut('DHCPv6', 'protocol=udp', 'localport=546', 'remoteport=547'));
  steps.push(allowOut('neighbour discovery', 'protocol=icmpv6:133,any'), allowOut('neighbour discovery', 'protocol=icmpv6:135,any'), allowOut('neighbour discovery', 'protocol=icmpv6:136,any'));
  steps.push(netsh('set', 'allprofiles', 'firewallpolicy', 'blockinbound,blockoutbound'));
  return steps;
}

function windowsRemoveRules(): ArgvStep {
  // `netsh advfirewall firewall delete rule` matches by name; every rule of ours starts with the group's name.
  return { file: 'powershell.exe', args: ['-NoProfile', '-NonInteractive', '-Command', `Get-NetFirewallRule -DisplayName '${WINDOWS_RULE_GROUP}: *' -ErrorAction SilentlyContinue | Remove-NetFirewallRule`] };
}

/** The default back as it was, then our rules gone. */
export function windowsKillSwitchOff(before: WindowsOutboundDefault): ArgvStep[] {
  return [netsh('set', 'allprofiles', 'firewallpolicy', `blockinbound,${before}`), windowsRemoveRules()];
}

// ---- macOS pf, for when sing-box is not running ----

/** Under `com.apple/`, which /etc/pf.conf loads (`anchor "com.apple/*"`), so the system's rules stay as they are. */
export const MAC_ANCHOR = 'com.apple/250.SteadfastKillSwitch';

export function macKillSwitchRules(plan: PlatformKillSwitchPlan): string {
  const { ipv4, ipv6 } = serverAddresses(plan.servers);
  const lines = [
    // pf takes the last matching rule, and the first `quick` one: block by default, pass the list.
    'block return out all',
    'pass out quick on lo0 all',
    `pass out quick inet from ${TUN_ADDRESSES.ipv4} to any`,
    `pass out quick inet6 from ${TUN_ADDRESSES.ipv6} to any`,
    ...(ipv4.length > 0 ? [`pass out quick inet to { ${ipv4.join(', ')} }`] : []),
    ...(ipv6.length > 0 ? [`pass out quick inet6 to { ${ipv6.join(', ')} }`] : []),
    ...(plan.allowLan ? [`pass out quick inet to { ${[...LAN_RANGES.ipv4, '169.254.0.0/16'].join(', ')} }`, `pass out quick inet6 to { ${[...LAN_RANGES.ipv6, 'fe80::/10'].join(', ')} }`] : []),
    'pass out quick inet proto udp from any port 68 to any port 67',
    'pass out quick inet6 proto udp from any port 546 to any port 547',
    'pass out quick inet6 proto ipv6-icmp icmp6-type { routersol, neighbrsol, neighbradv }',
    '',
  ];
  return lines.join('\n');
}

/** The anchor loaded (replacing its previous rules in one step) and pf enabled; it stays enabled. */
export function macKillSwitchOn(plan: PlatformKillSwitchPlan): ArgvStep[] {
  return [
    { file: '/sbin/pfctl', args: ['-a', MAC_ANCHOR, '-f', '-'], input: macKillSwitchRules(plan) },
    { file: '/sbin/pfctl', args: ['-e'] },
  ];
}

/** The anchor emptied; pf stays enabled for whatever else the system has in it. */
export function macKillSwitchOff(): ArgvStep[] {
  return [{ file: '/sbin/pfctl', args: ['-a', MAC_ANCHOR, '-F', 'all'] }];
}
