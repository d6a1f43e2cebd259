import { describe, expect, it } from 'vitest';
import { singBoxTunConfig } from '../../tun/policy/sing-box-tun';
import { MAC_ANCHOR, macKillSwitchOff, macKillSwitchOn, macKillSwitchRules, windowsKillSwitchOff, windowsKillSwitchOn, withKillSwitch } from './platform-kill-switch';

const servers = ['198.51.100.254', '2001:db8::1'];
const tun = (platform: 'win32' | 'darwin', bypassLan = true) => singBoxTunConfig({ socksPort: 10808, directPort: 10811, corePath: 'C:\\Steadfast\\core\\xray.exe', bypassLan, platform }) as Parameters<typeof withKillSwitch>[0];

describe('sing-box TUN with the kill switch (Windows, macOS)', () => {
  it.each(['win32', 'darwin'] as const)('%s: the core goes direct only to the servers, anything else it dials and the direct inbound are refused, strict route on', (platform) => {
    const config = withKillSwitch(tun(platform), { servers, allowLan: false });
    expect(config.route.rules).toEqual([
      { process_path: ['C:\\Steadfast\\core\\xray.exe'], outbound: 'direct', ip_cidr: ['198.51.100.254/32', '2001:db8::1/128'] },
      { process_path: ['C:\\Steadfast\\core\\xray.exe'], action: 'reject' },
      { inbound: ['direct-in'], action: 'reject' },
      { action: 'sniff' },
      { protocol: 'dns', action: 'hijack-dns' },
    ]);
    const inbound = config.inbounds.find((i) => i.type === 'tun')!;
    expect(inbound.strict_route).toBe(true);
    expect(inbound).not.toHaveProperty('route_exclude_address');
  });

  it('with the LAN allowed it stays off the device and goes direct, as without the kill switch', () => {
    const config = withKillSwitch(tun('win32'), { servers, allowLan: true });
    expect(config.inbounds.find((i) => i.type === 'tun')!.route_exclude_address).toEqual(tun('win32').inbounds.find((i) => i.type === 'tun')!.route_exclude_address);
    expect(config.route.rules).toContainEqual({ ip_is_private: true, outbound: 'direct' });
  });

  it('leaves the config it was given as it was', () => {
    const original = tun('darwin');
    const copy = structuredClone(original);
    withKillSwitch(original, { servers, allowLan: false });
    expect(original).toEqual(copy);
  });

  it('with no server address known the core may dial nothing directly', () => {
    const rules = withKillSwitch(tun('darwin'), { servers: [], allowLan: false }).route.rules;
    expect(rules.slice(0, 2)).toEqual([{ process_path: ['C:\\Steadfast\\core\\xray.exe'], action: 'reject' }, { inbound: ['direct-in'], action: 'reject' }]);
  });
});

describe('Windows Firewall for when sing-box is not running', () => {
  const said = (steps: { file: string; args: string[] }[]) => steps.map((s) => [s.file, ...s.args].join(' '));

  it('replaces our rules, allows the list, and only then blocks outbound by default', () => {
    expect(said(windowsKillSwitchOn({ servers, allowLan: false }))).toEqual([
      "powershell.exe -NoProfile -NonInteractive -Command Get-NetFirewallRule -DisplayName 'Steadfast VPN kill switch: *' -ErrorAction SilentlyContinue | Remove-NetFirewallRule",
      'netsh advfirewall firewall add rule name=Steadfast VPN kill switch: servers dir=out action=allow enable=yes profile=any remoteip=198.51.100.254,2001:db8::1',
      'netsh advfirewall firewall add rule name=Steadfast VPN kill switch: TUN dir=out action=allow enable=yes profile=any localip=172.19.0.1,fdfe:dcba:9876::1',
      'netsh advfirewall firewall add rule name=Steadfast VPN kill switch: DHCP dir=out action=allow enable=yes profile=any protocol=udp localport=68 remoteport=67',
      'netsh advfirewall firewall add rule name=Steadfast VPN kill switch: DHCPv6 dir=out action=allow enable=yes profile=any protocol=udp localport=546 remoteport=547',
      'netsh advfirewall firewall add rule name=Steadfast VPN kill switch: neighbour discovery dir=out action=allow enable=yes profile=any protocol=icmpv6:133,any',
      'netsh advfirewall firewall add rule name=Steadfast VPN kill switch: neighbour discovery dir=out action=allow enable=yes profile=any protocol=icmpv6:135,any',
      'netsh advfirewall firewall add rule name=Steadfast VPN kill switch: neighbour discovery dir=out action=allow enable=yes profile=any protocol=icmpv6:136,any',
      'netsh advfirewall set allprofiles firewallpolicy blockinbound,blockoutbound',
    ]);
  });

  it('allows the LAN ranges only when the user does', () => {
    expect(said(windowsKillSwitchOn({ servers, allowLan: true }))).toContain(
      'netsh advfirewall firewall add rule name=Steadfast VPN kill switch: LAN dir=out action=allow enable=yes profile=any remoteip=10.0.0.0/8,100.64.0.0/10,172.16.0.0/12,192.168.0.0/16,fc00::/7,169.254.0.0/16,fe80::/10',
    );
    expect(said(windowsKillSwitchOn({ servers, allowLan: false })).some((s) => s.includes('LAN'))).toBe(false);
  });

  it.each(['allowoutbound', 'blockoutbound'] as const)('off puts the outbound default back as it was (%s), then removes our rules', (before) => {
    expect(said(windowsKillSwitchOff(before))).toEqual([
      `netsh advfirewall set allprofiles firewallpolicy blockinbound,${before}`,
      "powershell.exe -NoProfile -NonInteractive -Command Get-NetFirewallRule -DisplayName 'Steadfast VPN kill switch: *' -ErrorAction SilentlyContinue | Remove-NetFirewallRule",
    ]);
  });

  it('refuses a name in the list rather than write it into a command', () => {
    expect(() => windowsKillSwitchOn({ servers: ['x.example,0.0.0.0/0'], allowLan: false })).toThrow(/not an IP address/);
  });
});

describe('macOS pf for when sing-box is not running', () => {
  it('blocks by default and passes loopback, the TUN, the servers and the link, in its own anchor', () => {
    expect(macKillSwitchRules({ servers, allowLan: false }).split('\n')).toEqual([
      'block return out all',
      'pass out quick on lo0 all',
      'pass out quick inet from 172.19.0.1 to any',
      'pass out quick inet6 from fdfe:dcba:9876::1 to any',
      'pass out quick inet to { 198.51.100.254 }',
      'pass out quick inet6 to { 2001:db8::1 }',
      'pass out quick inet proto udp from any port 68 to any port 67',
      'pass out quick inet6 proto udp from any port 546 to any port 547',
      'pass out quick inet6 proto ipv6-icmp icmp6-type { routersol, neighbrsol, neighbradv }',
      '',
    ]);
    expect(macKillSwitchRules({ servers, allowLan: true })).toContain('pass out quick inet to { 10.0.0.0/8, 100.64.0.0/10, 172.16.0.0/12, 192.168.0.0/16, 169.254.0.0/16 }');
  });

  it('loads the anchor and enables pf; off empties only the anchor', () => {
    expect(macKillSwitchOn({ servers, allowLan: false })).toEqual([
      { file: '/sbin/pfctl', args: ['-a', MAC_ANCHOR, '-f', '-'], input: macKillSwitchRules({ servers, allowLan: false }) },
      { file: '/sbin/pfctl', args: ['-e'] },
    ]);
    expect(macKillSwitchOff()).toEqual([{ file: '/sbin/pfctl', args: ['-a', 'com.apple/250.SteadfastKillSwitch', '-F', 'all'] }]);
  });
});
