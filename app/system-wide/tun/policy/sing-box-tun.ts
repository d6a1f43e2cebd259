/**
 * System-wide mode through sing-box's `tun` inbound (Windows and macOS, and Linux when the user
 * chooses it over TPROXY) in front of the same core, as v2rayN does — the TUN device takes every
 * program's traffic, sing-box hands it to the core's local SOCKS5 inbound (UDP included), and the
 * core carries it to the server as in proxy mode.
 * Written from sing-box's documented fields (configuration/inbound/tun, route rule actions of
 * 1.11, the typed DNS servers and `route.default_domain_resolver` of 1.12), so it needs sing-box
 * 1.12 or later; the installers bundle 1.14 (resources/core/pins.json):
 * - the core's own connections (to servers, and its direct ones) must not enter the TUN: they are
 *   matched by the core's executable path and sent `direct` (auto_detect_interface binds them to
 *   the real interface). On Linux too: sing-box's kernel-side exemption is the socket mark of
 *   auto_redirect, and auto_redirect cannot be had without its nfqueue pre-match (sing-tun turns
 *   the nft `queue` rule on whenever the queue opens, and a kernel without nft_queue then refuses
 *   the whole ruleset). So on Linux the core marks its own sockets (SO_MARK, when it holds
 *   CAP_NET_ADMIN: `coreMark`) and a policy rule of ours, ahead of sing-box's, sends marked
 *   packets by the main table (linuxTunCoreMarkRules): they never enter the device, and the
 *   config has no process rule. Any process rule makes sing-box search /proc for every new
 *   connection (the fd links of every process of the socket's user): once for the program's
 *   connection, before it answers the SYN, and once for the core's own to the server. Captured in
 *   the namespaces, those two searches were 25–50 ms each and nearly all of a TUN request's time
 *   (+41 ms per request over proxy mode in the bench, +170 ms under load 17); without them a
 *   request takes what it takes in proxy mode. Without the capability the process rule stays, as
 *   on Windows and macOS.
 *   Linux gets a named device and policy-routing numbers of our own, so what a killed sing-box
 *   leaves is found and removed (linuxTunLeftoverRemoval);
 * - private ranges stay out of the TUN when bypassLan is on (route_exclude_address);
 * - DNS to any address is answered by sing-box (hijack-dns), which asks the user's remote
 *   resolver through the core;
 * - a loopback `mixed` inbound leads straight out (`direct`): the monitor asks "is the network
 *   there" through it, of the network and not of the tunnel, and its first answer tells the app
 *   sing-box is up (it is listed after the tun inbound, which starts first);
 * - a domain an outbound must dial is resolved by that same server, named as the default resolver:
 *   sing-box 1.12 deprecated dialling a domain without one named, 1.13 refuses to start that way
 *   and 1.14 removed the fallback;
 * - IPv6 enters the device like IPv4 (its address range keeps IPv6 from going around the TUN);
 *   for a server without IPv6 it is refused there at once (`withIpv6Policy`).
 */
import { isIpAddress } from '../../../../shared/routing';
import type { Ipv6Capture } from '../../../core/transparent';
import { atLeast, parseCoreVersion } from '../../../core/version';
import type { TunPlatform } from './elevation';

export const TUN_ENGINE_MIN_VERSION = '1.12.0';

export interface TunConfigOptions {
  /** The core's local SOCKS5 inbound. */
  socksPort: number;
  /** Where it listens, as dialled (127.0.0.1 unless LAN sharing names an address). */
  socksHost?: string;
  /** The loopback port of the inbound that leads straight out (the monitor's direct check). */
  directPort: number;
  /** The core's executable, whose own connections go direct. */
  corePath: string;
  /**
   * Linux: the mark the core puts on its own sockets, which the kernel keeps out of the device
   * (linuxTunCoreMarkRules); its connections then need no process rule. Absent: matched by path.
   */
  coreMark?: number;
  bypassLan: boolean;
  platform: TunPlatform;
  /**
   * The resolver asked through the tunnel for captured DNS: the settings' remote resolver
   * (`https://…` or an address with an optional port); default plain DNS over TCP to 1.1.1.1.
   */
  remoteDns?: string;
}

/**
 * Linux: the device name and the policy-routing numbers sing-box is told to use, ours alone (the
 * TPROXY capture uses table 5346), so leftovers are found by number after a crash.
 */
export const LINUX_TUN = {
  device: 'steadfast0',
  table: 5348,
  /** The first of our priorities: the rule that keeps the core's marked packets out of the device. */
  ruleIndex: 5350,
  /** sing-box's own rules take the priorities from here up to singBoxRuleIndex + 10 (its `nop` target). */
  singBoxRuleIndex: 5351,
  /** Every priority from ruleIndex on that is ours: the mark rule and sing-box's eleven. */
  ruleSpan: 12,
} as const;

/**
 * Shell lines (root) putting in the rule that sends packets carrying the core's mark by the main
 * table, before any of sing-box's: the core's own connections (to servers, and its direct ones)
 * leave as if there were no TUN. Removed with sing-box's rules, by priority
 * (linuxTunLeftoverRemoval); harmless while no socket carries the mark.
 */
export function linuxTunCoreMarkRules(mark: number): string[] {
  if (!Number.isInteger(mark) || mark < 1 || mark > 0xffffffff) throw new Error(`invalid core mark ${String(mark)}`);
  const hex = `0x${mark.toString(16)}`;
  return ['-4', '-6'].map((family) => `ip ${family} rule add priority ${LINUX_TUN.ruleIndex} fwmark ${hex} lookup main`);
}

const LAN_EXCLUDED = ['10.0.0.0/8', '100.64.0.0/10', '172.16.0.0/12', '192.168.0.0/16', '169.254.0.0/16', 'fc00::/7', 'fe80::/10'];

export const DIRECT_INBOUND_TAG = 'direct-in';

/**
 * The version `sing-box version` prints on its first line, e.g.
 * `sing-box version 1.14.2` followed by `Environment: go1.24.4 windows/amd64`, `Tags: …`,
 * `Revision: …`, `CGO: disabled`; null when the output is not sing-box's.
 */
export function tunEngineVersion(output: string): string | null {
  const parsed = parseCoreVersion(output);
  return parsed?.family === 'sing-box' ? parsed.version : null;
}

/** Why this sing-box cannot be the TUN engine (null: it can). */
export function tunEngineRefusal(version: string): string | null {
  return !atLeast(version, TUN_ENGINE_MIN_VERSION)
    ? `sing-box ${version} is too old for the TUN front end (its typed DNS servers and route actions need ${TUN_ENGINE_MIN_VERSION} or later)`
    : null;
}

const DNS_TAG = 'through-core';
const BOOTSTRAP_DNS_TAG = 'bootstrap-through-core';

/**
 * sing-box's DNS servers for the user's remote resolver, all dialled through the core: an
 * address becomes plain UDP DNS to it, a DoH URL an `https` server (one named by a host name is
 * itself resolved through the core, by 1.1.1.1 over TCP).
 */
export function tunDnsServers(remote: string | undefined): Record<string, unknown>[] {
  if (remote === undefined) return [{ type: 'tcp', tag: DNS_TAG, server: '1.1.1.1', server_port: 53, detour: 'core' }];
  if (remote.startsWith('https://')) {
    const url = new URL(remote);
    const host = url.hostname.replace(/^\[|\]$/g, '');
    const named = !isIpAddress(host);
    return [
      {
        type: 'https',
        tag: DNS_TAG,
        server: host,
        ...(url.port ? { server_port: Number(url.port) } : {}),
        ...(url.pathname !== '/dns-query' ? { path: url.pathname } : {}),
        detour: 'core',
        ...(named ? { domain_resolver: BOOTSTRAP_DNS_TAG } : {}),
      },
      ...(named ? [{ type: 'tcp', tag: BOOTSTRAP_DNS_TAG, server: '1.1.1.1', server_port: 53, detour: 'core' }] : []),
    ];
  }
  const bracketed = /^\[([^\]]+)\](?::(\d+))?$/.exec(remote);
  const [host, port] = bracketed ? [bracketed[1]!, bracketed[2]] : remote.split(':').length === 2 ? (remote.split(':') as [string, string]) : [remote, undefined];
  return [{ type: 'udp', tag: DNS_TAG, server: host, ...(port !== undefined ? { server_port: Number(port) } : {}), detour: 'core' }];
}

export function singBoxTunConfig(o: TunConfigOptions): Record<string, unknown> {
  if (!Number.isInteger(o.socksPort) || o.socksPort < 1 || o.socksPort > 65535) throw new Error(`invalid SOCKS port ${String(o.socksPort)}`);
  if (!Number.isInteger(o.directPort) || o.directPort < 1 || o.directPort > 65535 || o.directPort === o.socksPort) throw new Error(`invalid direct port ${String(o.directPort)}`);
  if (o.corePath.trim() === '') throw new Error('the core path is needed: its own connections must bypass the TUN');
  const linux = o.platform === 'linux';
  if (o.coreMark !== undefined && !linux) throw new Error('only Linux keeps the core’s marked connections out of the TUN; elsewhere they are matched by path');
  // Marked, the core's connections never reach sing-box: no rule asks for the process, so sing-box never searches for one.
  const coreByPath = o.coreMark === undefined ? [{ process_path: [o.corePath], outbound: 'direct' }] : [];
  return {
    log: { level: 'warn' },
    dns: { servers: tunDnsServers(o.remoteDns), final: DNS_TAG },
    inbounds: [
      {
        type: 'tun',
        tag: 'tun-in',
        // macOS names its TUN devices utunN itself; Windows (wintun) and Linux take the given name.
        ...(o.platform === 'win32' ? { interface_name: 'Steadfast VPN' } : linux ? { interface_name: LINUX_TUN.device } : {}),
        address: ['172.19.0.1/30', 'fdfe:dcba:9876::1/126'],
        mtu: 9000,
        auto_route: true,
        strict_route: true,
        ...(linux ? { iproute2_table_index: LINUX_TUN.table, iproute2_rule_index: LINUX_TUN.singBoxRuleIndex } : {}),
        stack: 'mixed',
        ...(o.bypassLan ? { route_exclude_address: LAN_EXCLUDED } : {}),
      },
      { type: 'mixed', tag: DIRECT_INBOUND_TAG, listen: '127.0.0.1', listen_port: o.directPort },
    ],
    outbounds: [
      { type: 'socks', tag: 'core', server: o.socksHost ?? '127.0.0.1', server_port: o.socksPort, version: '5' },
      { type: 'direct', tag: 'direct' },
    ],
    route: {
      auto_detect_interface: true,
      default_domain_resolver: 'through-core',
      final: 'core',
      rules: [
        ...coreByPath,
        { inbound: [DIRECT_INBOUND_TAG], outbound: 'direct' },
        { action: 'sniff' },
        { protocol: 'dns', action: 'hijack-dns' },
        ...(o.bypassLan ? [{ ip_is_private: true, outbound: 'direct' }] : []),
      ],
    },
  };
}

type Rule = Record<string, unknown>;

/**
 * A server without IPv6 (system-wide/policy/ipv6-capture.ts): every IPv6 connection that would go
 * to the core is refused by sing-box at once (`reject`: a TCP reset, ICMP for UDP), so a dual-stack
 * program falls back to IPv4 through the tunnel. The refusal stands before the `sniff` action:
 * only there may sing-box match it before the connection is accepted (its pre-match), where a
 * refusal after sniffing would accept the connection and then drop it, which a program cannot
 * fall back from. And the device runs sing-box's own (gvisor) stack meanwhile: the system stack
 * of `mixed` completes a TCP handshake before any rule is asked, so a refused IPv6 connection
 * still looked connected (seen in the namespace test); gvisor answers the SYN with the reset. What goes direct stays direct (the core's own connections, apps that
 * bypass the VPN, the LAN when bypassed) and DNS stays answered; per-app "only" rules are matched
 * for IPv6 first, and the general refusal stands only where the rest ends in the core. Applied
 * after the per-app rules (per-app/policy/sing-box-rules.ts withPerApp).
 */
export function withIpv6Policy(config: Record<string, unknown>, ipv6: Ipv6Capture): Record<string, unknown> {
  if (ipv6 === 'capture') return config;
  const route = config.route as { final?: string; rules?: Rule[] } & Rule;
  const rules: Rule[] = [];
  for (const rule of route.rules ?? []) {
    if (rule.outbound === 'core') {
      const { outbound: _core, ...match } = rule;
      rules.push({ ...match, ip_version: 6, action: 'reject' });
    }
    rules.push(rule);
  }
  if ((route.final ?? 'core') === 'core') {
    const lanDirect = rules.some((rule) => rule.ip_is_private === true && rule.outbound === 'direct');
    const refusal: Rule[] = [
      ...(lanDirect ? [{ ip_version: 6, ip_is_private: true, outbound: 'direct' }] : []),
      ...(rules.some((rule) => rule.action === 'hijack-dns') ? [{ ip_version: 6, port: [53], action: 'hijack-dns' }] : []),
      { ip_version: 6, action: 'reject' },
    ];
    const sniff = rules.findIndex((rule) => rule.action === 'sniff');
    rules.splice(sniff < 0 ? rules.length : sniff, 0, ...refusal);
  }
  const inbounds = (config.inbounds as Rule[]).map((inbound) => (inbound.type === 'tun' ? { ...inbound, stack: 'gvisor' } : inbound));
  return { ...config, inbounds, route: { ...route, rules } };
}
