import { describe, expect, it } from 'vitest';
import { profileFromTable } from '../../../app/core/testing/profile';
import { sampleServer } from '../../../shared/domain/sample-servers';
import type { Server } from '../../../shared/domain/server';
import type { UsageError } from '../../args';
import { chooseServer, parseArgs } from './connect';
import { parseAutoArgs } from './connect-auto';

const core = profileFromTable('v2ray', '4.34.0');
const base = { subscriptionId: 'cli', address: '10.0.0.1' };
const servers: Server[] = [
  sampleServer('vless', 'tcp', { ...base, id: 'a', name: 'Needs Xray', security: { type: 'reality', publicKey: 'k' } }),
  sampleServer('trojan', 'tcp', { ...base, id: 'b', name: 'Frankfurt 1' }),
  sampleServer('trojan', 'tcp', { ...base, id: 'c', name: 'Frankfurt 2' }),
];

describe('connect options', () => {
  it('reads the flags', () => {
    expect(parseArgs(['--subscription', 'http://x/sub', '--server', 'b', '--http-port', '1080', '--socks-port', '1081', '--probe'])).toEqual({
      subscription: 'http://x/sub',
      server: 'b',
      httpPort: 1080,
      socksPort: 1081,
      probe: true,
      verbose: false,
      killSwitch: false,
      killSwitchAllowLan: false,
    });
  });

  it('--kill-switch, and --kill-switch-allow-lan beside it, for connect and connect --auto alike', () => {
    for (const read of [parseArgs, (argv: string[]) => parseAutoArgs(['--auto', ...argv])]) {
      expect(read(['--subscription', 's', '--kill-switch'])).toMatchObject({ killSwitch: true, killSwitchAllowLan: false });
      expect(read(['--subscription', 's', '--kill-switch', '--kill-switch-allow-lan'])).toMatchObject({ killSwitch: true, killSwitchAllowLan: true });
      expect(() => read(['--subscription', 's', '--kill-switch-allow-lan'])).toThrow(/--kill-switch-allow-lan goes with --kill-switch/);
    }
  });

  it('--core: a core by name (wherever it is found) or a program by path', () => {
    expect(parseArgs(['--subscription', 's', '--core', 'v2ray']).corePath).toBe('v2ray');
    expect(parseArgs(['--subscription', 's', '--core', 'xray']).corePath).toBe('xray');
    expect(parseArgs(['--subscription', 's', '--core', '/opt/xray/xray']).corePath).toBe('/opt/xray/xray');
    expect(parseAutoArgs(['--auto', '--subscription', 's', '--core', 'v2ray']).corePath).toBe('v2ray');
    expect(parseAutoArgs(['--auto', '--subscription', 's']).corePath).toBeUndefined();
  });

  it.each([
    [['--subscription', 'x', '--core', 'sing-box'], /sing-box carries servers beside a main core \(xray or v2ray\), it cannot be the main core/],
    [['--subscription', 'x', '--core', 'Xray-core'], /--core is xray, v2ray or the path of a core program, got "Xray-core"/],
    [['--subscription', 'x', '--core', ' '], /--core is xray, v2ray or the path/],
  ])('refuses %j for connect and connect --auto alike', (argv, message) => {
    expect(() => parseArgs(argv)).toThrow(message);
    expect(() => parseAutoArgs(['--auto', ...argv])).toThrow(message);
  });

  it('--bypass-app / --only-app: one list, each entry an app path, a program name or uid:N', () => {
    expect(parseArgs(['--subscription', 'x', '--bypass-app', 'uid:1001', '--bypass-app', '/usr/bin/steam'])).toMatchObject({ perApp: { mode: 'bypass', bypass: ['uid:1001', '/usr/bin/steam'], only: [] } });
    expect(parseArgs(['--subscription', 'x', '--only-app', 'cursor'])).toMatchObject({ perApp: { mode: 'only', bypass: [], only: ['cursor'] } });
    expect(() => parseArgs(['--subscription', 'x', '--bypass-app', 'a', '--only-app', 'b'])).toThrow(/cannot be used together/);
    expect(() => parseArgs(['--subscription', 'x', '--only-app', 'bin/cursor'])).toThrow(/--only-app "bin\/cursor": an app is its full path/);
  });

  it('--share takes a private LAN address', () => {
    expect(parseArgs(['--subscription', 'x', '--share', '192.168.1.5'])).toMatchObject({ share: '192.168.1.5' });
  });

  it('--capture tun chooses sing-box’s TUN for system-wide mode', () => {
    expect(parseArgs(['--subscription', 'x', '--mode', 'system-wide', '--capture', 'tun'])).toMatchObject({ mode: 'system-wide', capture: 'tun' });
  });

  it.each([
    [[], /usage/],
    [['--subscription'], /needs a value/],
    [['--subscription', 'x', '--http-port', '70000'], /port number/],
    [['--subscription', 'x', '--http-port', '1080', '--socks-port', '1080'], /must differ/],
    [['--subscription', 'x', '--auto-magic'], /unknown option --auto-magic/],
    [['--subscription', 'x', '--mode', 'system-wide', '--capture', 'redirect'], /--capture is tproxy or tun, got "redirect"/],
    [['--subscription', 'x', '--share', '0.0.0.0'], /--share: 0.0.0.0 is not a private LAN address/],
    [['--subscription', 'x', '--share', '8.8.8.8'], /--share: 8.8.8.8 is not a private LAN address/],
    [['--subscription', 'x', '--share', 'tv.local'], /--share: "tv.local" is not an IP address/],
  ])('refuses %j with a usage error', (argv, message) => {
    expect(() => parseArgs(argv)).toThrow(message);
    try {
      parseArgs(argv);
    } catch (error) {
      expect((error as UsageError).exitCode).toBe(2);
    }
  });
});

describe('chooseServer', () => {
  it('takes the first server the core can run', () => {
    expect(chooseServer(servers, core).id).toBe('b');
  });

  it('takes the named one: id, exact name, or a unique part of a name', () => {
    expect(chooseServer(servers, core, 'c').id).toBe('c');
    expect(chooseServer(servers, core, 'Frankfurt 2').id).toBe('c');
    expect(chooseServer(servers, core, 'xray').id).toBe('a');
  });

  it('says which servers an ambiguous or unknown name could mean', () => {
    expect(() => chooseServer(servers, core, 'frankfurt')).toThrow(/matches 2 servers: b \(Frankfurt 1\), c \(Frankfurt 2\)/);
    expect(() => chooseServer(servers, core, 'Tokyo')).toThrow(/no server "Tokyo"/);
  });
});
