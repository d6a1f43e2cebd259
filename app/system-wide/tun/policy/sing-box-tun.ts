/**
 * System-wide mode on Windows and macOS: sing-box's `tun` inbound in front of the same core, as
 * v2rayN does — the TUN device takes every program's traffic, sing-box hands it to the core's
 * local SOCKS5 inbound (UDP included), and the core carries it to the server as in proxy mode.
 * Written from sing-box's documented fields (configuration/inbound/tun, route rule actions of
 * 1.11, the typed DNS servers and `route.default_domain_resolver` of 1.12), so it needs sing-box
 * 1.12 or later; the installers bundle 1.14 (resources/core/pins.json):
 * - the core's own connections (to servers, and its direct ones) must not enter the TUN: they are
 *   matched by the core's executable path and sent `direct` (auto_detect_interface binds them to
 *   the real interface);
 * - private ranges stay out of the TUN when bypassLan is on (route_exclude_address);
 * - DNS to any address is answered by sing-box (hijack-dns), which asks through the core;
 * - a domain an outbound must dial is resolved by that same server, named as the default resolver:
 *   sing-box 1.12 deprecated dialling a domain without one named, 1.13 refuses to start that way
 *   and 1.14 removed the fallback.
 */
import { atLeast } from '../../../core/version';

export const TUN_ENGINE_MIN_VERSION = '1.12.0';

export interface TunConfigOptions {
  /** The core's local SOCKS5 inbound (127.0.0.1). */
  socksPort: number;
  /** The core's executable, whose own connections go direct. */
  corePath: string;
  bypassLan: boolean;
  platform: 'win32' | 'darwin';
  /** The resolver asked through the tunnel for captured DNS (default 1.1.1.1). */
  dnsServer?: string;
}

const LAN_EXCLUDED = ['10.0.0.0/8', '100.64.0.0/10', '172.16.0.0/12', '192.168.0.0/16', '169.254.0.0/16', 'fc00::/7', 'fe80::/10'];

/** Why this sing-box cannot be the TUN engine (null: it can). */
export function tunEngineRefusal(version: string): string | null {
  return !atLeast(version, TUN_ENGINE_MIN_VERSION)
    ? `sing-box ${version} is too old for the TUN front end (its typed DNS servers and route actions need ${TUN_ENGINE_MIN_VERSION} or later)`
    : null;
}

export function singBoxTunConfig(o: TunConfigOptions): Record<string, unknown> {
  if (!Number.isInteger(o.socksPort) || o.socksPort < 1 || o.socksPort > 65535) throw new Error(`invalid SOCKS port ${String(o.socksPort)}`);
  if (o.corePath.trim() === '') throw new Error('the core path is needed: its own connections must bypass the TUN');
  return {
    log: { level: 'warn' },
    dns: {
      servers: [{ type: 'tcp', tag: 'through-core', server: o.dnsServer ?? '1.1.1.1', server_port: 53, detour: 'core' }],
      final: 'through-core',
    },
    inbounds: [
      {
        type: 'tun',
        tag: 'tun-in',
        // macOS names its TUN devices utunN itself; Windows (wintun) takes the given name.
        ...(o.platform === 'win32' ? { interface_name: 'Steadfast VPN' } : {}),
        address: ['172.19.0.1/30', 'fdfe:dcba:9876::1/126'],
        mtu: 9000,
        auto_route: true,
        strict_route: true,
        stack: 'mixed',
        ...(o.bypassLan ? { route_exclude_address: LAN_EXCLUDED } : {}),
      },
    ],
    outbounds: [
      { type: 'socks', tag: 'core', server: '127.0.0.1', server_port: o.socksPort, version: '5' },
      { type: 'direct', tag: 'direct' },
    ],
    route: {
      auto_detect_interface: true,
      default_domain_resolver: 'through-core',
      final: 'core',
      rules: [
        { process_path: [o.corePath], outbound: 'direct' },
        { action: 'sniff' },
        { protocol: 'dns', action: 'hijack-dns' },
        ...(o.bypassLan ? [{ ip_is_private: true, outbound: 'direct' }] : []),
      ],
    },
  };
}
