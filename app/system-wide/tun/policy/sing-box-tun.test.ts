import { describe, expect, it } from 'vitest';
import { DEFAULT_PER_APP } from '../../../../shared/per-app';
import { singBoxPerApp, withPerApp } from '../../per-app/policy/sing-box-rules';
import { LINUX_TUN, linuxTunCoreMarkRules, singBoxTunConfig, tunDnsServers, tunEngineRefusal, tunEngineVersion, withIpv6Policy } from './sing-box-tun';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const base = { socksPort: 10808, directPort: 10899, corePath: 'C:\\Program Files\\Steadfast VPN\\resources\\core\\xray.exe', bypassLan: true, platform: 'win32' as const };

describe('sing-box TUN front end', () => {
  const config = singBoxTunConfig(base) as Json;

  it('a tun inbound that takes the default route strictly, IPv4 and IPv6, on the documented fields', () => {
    expect(config.inbounds[0]).toEqual(
      expect.objectContaining({
        type: 'tun',
        tag: 'tun-in',
        interface_name: 'Steadfast VPN',
        address: ['172.19.0.1/30', 'fdfe:dcba:9876::1/126'],
        auto_route: true,
        strict_route: true,
        stack: 'mixed',
      }),
    );
    expect(config.route.auto_detect_interface).toBe(true);
  });

  it('a loopback inbound leads straight out, after the tun inbound so its answer means the TUN is up', () => {
    expect(config.inbounds[1]).toEqual({ type: 'mixed', tag: 'direct-in', listen: '127.0.0.1', listen_port: 10899 });
    expect(config.route.rules[1]).toEqual({ inbound: ['direct-in'], outbound: 'direct' });
  });

  it('dials the core where it listens when LAN sharing names an address', () => {
    expect((singBoxTunConfig({ ...base, socksHost: '192.168.1.5' }) as Json).outbounds[0].server).toBe('192.168.1.5');
  });

  it('everything goes to the core’s local SOCKS5 inbound', () => {
    expect(config.outbounds[0]).toEqual({ type: 'socks', tag: 'core', server: '127.0.0.1', server_port: 10808, version: '5' });
    expect(config.route.final).toBe('core');
  });

  it('the core’s own connections go direct, matched first by its executable (no loop into the TUN)', () => {
    expect(config.route.rules[0]).toEqual({ process_path: [base.corePath], outbound: 'direct' });
  });

  it('DNS is answered by sing-box and asked through the core', () => {
    expect(config.route.rules).toContainEqual({ protocol: 'dns', action: 'hijack-dns' });
    expect(config.dns).toEqual({ servers: [{ type: 'tcp', tag: 'through-core', server: '1.1.1.1', server_port: 53, detour: 'core' }], final: 'through-core' });
  });

  it('names its one DNS server as the resolver of every domain an outbound dials (sing-box 1.14 refuses a config without one)', () => {
    expect(config.route.default_domain_resolver).toBe('through-core');
    expect(config.dns.servers.map((server: Json) => server.tag)).toContain(config.route.default_domain_resolver);
  });

  it('bypassLan keeps private ranges out of the TUN; off, they are captured too', () => {
    expect(config.inbounds[0].route_exclude_address).toEqual(expect.arrayContaining(['192.168.0.0/16', '10.0.0.0/8', 'fc00::/7']));
    expect(config.route.rules).toContainEqual({ ip_is_private: true, outbound: 'direct' });
    const off = singBoxTunConfig({ ...base, bypassLan: false }) as Json;
    expect(off.inbounds[0].route_exclude_address).toBeUndefined();
    expect(JSON.stringify(off.route.rules)).not.toContain('ip_is_private');
  });

  it('macOS names its utun device itself', () => {
    expect((singBoxTunConfig({ ...base, platform: 'darwin', corePath: '/Applications/Steadfast VPN.app/Contents/Resources/core/xray' }) as Json).inbounds[0].interface_name).toBeUndefined();
  });

  it('refuses what would write a broken config', () => {
    expect(() => singBoxTunConfig({ ...base, socksPort: 0 })).toThrow('invalid SOCKS port');
    expect(() => singBoxTunConfig({ ...base, directPort: base.socksPort })).toThrow('invalid direct port');
    expect(() => singBoxTunConfig({ ...base, corePath: ' ' })).toThrow('the core path is needed');
  });

  it.each([
    ['none set: plain DNS over TCP to 1.1.1.1', undefined, [{ type: 'tcp', tag: 'through-core', server: '1.1.1.1', server_port: 53, detour: 'core' }]],
    ['a resolver address: UDP to it', '203.0.113.53', [{ type: 'udp', tag: 'through-core', server: '203.0.113.53', detour: 'core' }]],
    ['with a port', '203.0.113.53:5353', [{ type: 'udp', tag: 'through-core', server: '203.0.113.53', server_port: 5353, detour: 'core' }]],
    ['IPv6 with a port', '[2606:4700::1111]:53', [{ type: 'udp', tag: 'through-core', server: '2606:4700::1111', server_port: 53, detour: 'core' }]],
    ['DoH by address', 'https://1.1.1.1/dns-query', [{ type: 'https', tag: 'through-core', server: '1.1.1.1', detour: 'core' }]],
    ['DoH on another path and port', 'https://9.9.9.9:8443/resolve', [{ type: 'https', tag: 'through-core', server: '9.9.9.9', server_port: 8443, path: '/resolve', detour: 'core' }]],
    [
      'DoH by name: the name itself resolved through the core',
      'https://dns.google/dns-query',
      [
        { type: 'https', tag: 'through-core', server: 'dns.google', detour: 'core', domain_resolver: 'bootstrap-through-core' },
        { type: 'tcp', tag: 'bootstrap-through-core', server: '1.1.1.1', server_port: 53, detour: 'core' },
      ],
    ],
  ])('captured DNS asks the remote resolver through the core — %s', (_what, remote, servers) => {
    expect(tunDnsServers(remote)).toEqual(servers);
  });

  it('reads the version sing-box prints, and nothing from another program', () => {

    const windows = 'sing-box version 1.14.2\n\nEnvironment: go1.24.4 windows/amd64\nTags: with_gvisor,with_quic,with_dhcp,with_wireguard,with_utls,with_acme,with_clash_api\nRevision: 0123abc\nCGO: disabled\n';
    expect(tunEngineVersion(windows)).toBe('1.14.2');
    expect(tunEngineVersion('sing-box version 1.10.0-alpha.28\n\nEnvironment: go1.22.5 windows/amd64\n')).toBe('1.10.0-alpha.28');
    expect(tunEngineVersion('Xray 26.3.27 (Xray, Penetrates Everything.) 2c0a9e4 (go1.25 darwin/arm64)')).toBeNull();
    expect(tunEngineVersion('zsh: command not found: sing-box')).toBeNull();
  });

  it.each([
    ['1.11.4', true],
    ['1.12.0', false],
    ['1.13.0-beta.2', false],
  ])('sing-box %s too old: %s', (version, refused) => {
    expect(tunEngineRefusal(version) !== null).toBe(refused);
  });
});

describe('sing-box TUN on Linux', () => {
  const linux = singBoxTunConfig({ ...base, platform: 'linux', corePath: '/usr/lib/steadfast-vpn/core/xray', remoteDns: '203.0.113.53' }) as Json;
  const tun = linux.inbounds[0];

  it('a named device taking the default route strictly, on policy-routing numbers of our own', () => {
    expect(tun).toMatchObject({ type: 'tun', interface_name: LINUX_TUN.device, auto_route: true, strict_route: true, iproute2_table_index: LINUX_TUN.table, iproute2_rule_index: LINUX_TUN.singBoxRuleIndex });
    // Not the TPROXY capture's table: both may be chosen on one machine, one after the other.
    expect(LINUX_TUN.table).not.toBe(5346);
    expect(LINUX_TUN.device.length).toBeLessThanOrEqual(15);
  });

  it('no auto_redirect: it cannot run without its nfqueue pre-match, which kernels without nft_queue refuse whole', () => {
    expect(tun.auto_redirect).toBeUndefined();
  });

  it('the core’s own connections leave direct, matched by its executable, as on Windows and macOS', () => {
    expect(linux.route.rules[0]).toEqual({ process_path: ['/usr/lib/steadfast-vpn/core/xray'], outbound: 'direct' });
    expect(linux.route.auto_detect_interface).toBe(true);
  });

  it.each([
    ['a core that may mark its sockets: kept out of the device by the kernel, no process rule (sing-box then never searches /proc)', 0x5347, false],
    ['a core that may not: matched by its executable, each connection’s process searched', undefined, true],
  ] as const)('%s', (_what, coreMark, byPath) => {
    const config = singBoxTunConfig({ ...base, platform: 'linux', corePath: '/usr/lib/steadfast-vpn/core/xray', ...(coreMark !== undefined ? { coreMark } : {}) }) as Json;
    const processRules = (config.route.rules as Json[]).filter((rule) => Object.keys(rule).some((key) => key.startsWith('process_') || key === 'user_id'));
    expect(processRules).toEqual(byPath ? [{ process_path: ['/usr/lib/steadfast-vpn/core/xray'], outbound: 'direct' }] : []);
    expect(config.route.find_process).toBeUndefined();
    // Whatever the way, the direct inbound still leads straight out, first.
    expect(config.route.rules[byPath ? 1 : 0]).toEqual({ inbound: ['direct-in'], outbound: 'direct' });
  });

  it('the core mark rule sends marked packets by the main table ahead of every rule of sing-box’s, on a priority of ours that the removal covers', () => {
    expect(linuxTunCoreMarkRules(0x5347)).toEqual([`ip -4 rule add priority ${LINUX_TUN.ruleIndex} fwmark 0x5347 lookup main`, `ip -6 rule add priority ${LINUX_TUN.ruleIndex} fwmark 0x5347 lookup main`]);
    expect(LINUX_TUN.ruleIndex).toBeLessThan(LINUX_TUN.singBoxRuleIndex);
    // sing-box's rules run from its index to its nop 10 above: all inside the span the removal deletes.
    expect(LINUX_TUN.singBoxRuleIndex + 10).toBeLessThanOrEqual(LINUX_TUN.ruleIndex + LINUX_TUN.ruleSpan - 1);
    expect(() => linuxTunCoreMarkRules(0)).toThrow('invalid core mark');
  });

  it('a mark is for Linux alone: Windows and macOS match the core by its path', () => {
    expect(() => singBoxTunConfig({ ...base, coreMark: 0x5347 })).toThrow('only Linux');
  });

  it('DNS is answered by sing-box and asked of the user’s remote resolver through the core', () => {
    expect(linux.dns.servers).toEqual([{ type: 'udp', tag: 'through-core', server: '203.0.113.53', detour: 'core' }]);
    expect(linux.route.rules).toContainEqual({ protocol: 'dns', action: 'hijack-dns' });
  });
});

describe('IPv6 through the TUN', () => {
  const linux = { ...base, platform: 'linux' as const, corePath: '/opt/steadfast/xray' };
  const reject6 = { ip_version: 6, action: 'reject' };

  it('a server that carries IPv6: nothing changes, IPv6 goes to the core like IPv4', () => {
    const config = singBoxTunConfig(linux);
    expect(withIpv6Policy(config, 'capture')).toBe(config);
  });

  it('a server that does not: IPv6 is refused before sniffing (so before the connection is accepted), after the core’s own and the direct inbound, the LAN and DNS kept', () => {
    const rules = (withIpv6Policy(singBoxTunConfig(linux), 'block') as Json).route.rules as Json[];
    expect(rules).toEqual([
      { process_path: ['/opt/steadfast/xray'], outbound: 'direct' },
      { inbound: ['direct-in'], outbound: 'direct' },
      { ip_version: 6, ip_is_private: true, outbound: 'direct' },
      { ip_version: 6, port: [53], action: 'hijack-dns' },
      reject6,
      { action: 'sniff' },
      { protocol: 'dns', action: 'hijack-dns' },
      { ip_is_private: true, outbound: 'direct' },
    ]);
  });

  it('refusing IPv6, the device runs sing-box’s own stack, whose pre-match answers the SYN (the system stack would accept first); carrying it, the mixed stack stays', () => {
    expect((withIpv6Policy(singBoxTunConfig(linux), 'block') as Json).inbounds[0].stack).toBe('gvisor');
    expect((withIpv6Policy(singBoxTunConfig(linux), 'capture') as Json).inbounds[0].stack).toBe('mixed');
    expect((withIpv6Policy(singBoxTunConfig(linux), 'block') as Json).inbounds[1]).toEqual({ type: 'mixed', tag: 'direct-in', listen: '127.0.0.1', listen_port: 10899 });
  });

  it('the LAN captured: its IPv6 is refused too (no LAN exception)', () => {
    const rules = (withIpv6Policy(singBoxTunConfig({ ...linux, bypassLan: false }), 'block') as Json).route.rules as Json[];
    expect(rules).not.toContainEqual(expect.objectContaining({ ip_version: 6, ip_is_private: true }));
    expect(rules).toContainEqual(reject6);
  });

  it('bypassing apps keep their IPv6 direct (their rule comes first)', () => {
    const config = withPerApp(singBoxTunConfig(linux), singBoxPerApp({ ...DEFAULT_PER_APP, mode: 'bypass', bypass: ['uid:1001'] }, 'linux'));
    const rules = (withIpv6Policy(config, 'block') as Json).route.rules as Json[];
    expect(rules.findIndex((r) => r.outbound === 'direct' && Array.isArray(r.user_id))).toBeLessThan(rules.findIndex((r) => r.action === 'reject'));
    expect(rules.findIndex((r) => r.action === 'reject')).toBeLessThan(rules.findIndex((r) => r.action === 'sniff'));
  });

  it('"only these apps": their IPv6 is refused before their rule sends them to the core; the rest stays direct, IPv6 too', () => {
    const config = withPerApp(singBoxTunConfig(linux), singBoxPerApp({ ...DEFAULT_PER_APP, mode: 'only', only: ['uid:1001'] }, 'linux'));
    const rules = (withIpv6Policy(config, 'block') as Json).route.rules as Json[];
    const theirs = rules.findIndex((r) => r.outbound === 'core');
    expect(rules[theirs - 1]).toEqual({ user_id: [1001], ...reject6 });
    expect(rules).not.toContainEqual(reject6);
    expect((withIpv6Policy(config, 'block') as Json).route.final).toBe('direct');
  });
});
