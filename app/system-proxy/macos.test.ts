import { describe, expect, it } from 'vitest';
import {
  macApplyCommands,
  macListServicesCommand,
  macosBackend,
  macReadServiceCommands,
  macRestoreCommands,
  NETWORKSETUP,
  parseMacBypass,
  parseMacProxyState,
  parseMacServices,
} from './macos';
import { blankService, FakeNetworkSetup } from './testing/fake-networksetup';

const target = { host: '127.0.0.1', httpPort: 10809, socksPort: 10808 };
const ns = (...args: string[]) => ({ file: NETWORKSETUP, args });

describe('macOS networksetup commands', () => {
  it('lists services, then reads each proxy kind and the bypass list of one service', () => {
    expect(macListServicesCommand()).toEqual(ns('-listallnetworkservices'));
    expect(macReadServiceCommands('Wi-Fi')).toEqual([
      ns('-getwebproxy', 'Wi-Fi'),
      ns('-getsecurewebproxy', 'Wi-Fi'),
      ns('-getsocksfirewallproxy', 'Wi-Fi'),
      ns('-getproxybypassdomains', 'Wi-Fi'),
    ]);
  });

  it('points web, secure web and SOCKS at the app, with loopback and local names bypassed', () => {
    expect(macApplyCommands('USB 10/100/1000 LAN', target)).toEqual([
      ns('-setwebproxy', 'USB 10/100/1000 LAN', '127.0.0.1', '10809'),
      ns('-setsecurewebproxy', 'USB 10/100/1000 LAN', '127.0.0.1', '10809'),
      ns('-setsocksfirewallproxy', 'USB 10/100/1000 LAN', '127.0.0.1', '10808'),
      ns('-setproxybypassdomains', 'USB 10/100/1000 LAN', 'localhost', '127.0.0.1', '::1', '*.local', '169.254/16'),
      ns('-setwebproxystate', 'USB 10/100/1000 LAN', 'on'),
      ns('-setsecurewebproxystate', 'USB 10/100/1000 LAN', 'on'),
    ]);
  });

  it('switches SOCKS off when the app has no SOCKS inbound', () => {
    expect(macApplyCommands('Wi-Fi', { ...target, socksPort: null })[2]).toEqual(ns('-setsocksfirewallproxystate', 'Wi-Fi', 'off'));
  });

  it('restores each proxy to its server, port and state; an empty bypass list as "Empty"', () => {
    const off = { enabled: false, server: '', port: 0, authenticated: false };
    expect(
      macRestoreCommands({
        name: 'Wi-Fi',
        proxies: { web: { enabled: true, server: 'corp', port: 3128, authenticated: false }, secureweb: off, socksfirewall: { ...off, server: 'old', port: 1080 } },
        bypass: [],
      }),
    ).toEqual([
      ns('-setwebproxy', 'Wi-Fi', 'corp', '3128'),
      ns('-setwebproxystate', 'Wi-Fi', 'on'),
      ns('-setsecurewebproxystate', 'Wi-Fi', 'off'),
      ns('-setsocksfirewallproxy', 'Wi-Fi', 'old', '1080'),
      ns('-setsocksfirewallproxystate', 'Wi-Fi', 'off'),
      ns('-setproxybypassdomains', 'Wi-Fi', 'Empty'),
    ]);
  });
});

describe('reading networksetup output', () => {
  it('skips the legend line and disabled services', () => {
    const out = 'An asterisk (*) denotes that a network service is disabled.\nWi-Fi\n*Bluetooth PAN\nThunderbolt Bridge\n';
    expect(parseMacServices(out)).toEqual(['Wi-Fi', 'Thunderbolt Bridge']);
  });

  it('reads a proxy state, including an empty server', () => {
    expect(parseMacProxyState('Enabled: Yes\nServer: proxy.corp\nPort: 8080\nAuthenticated Proxy Enabled: 1\n')).toEqual({
      enabled: true,
      server: 'proxy.corp',
      port: 8080,
      authenticated: true,
    });
    expect(parseMacProxyState('Enabled: No\nServer: \nPort: 0\nAuthenticated Proxy Enabled: 0\n')).toEqual({
      enabled: false,
      server: '',
      port: 0,
      authenticated: false,
    });
  });

  it('refuses output it does not understand rather than guessing', () => {
    expect(() => parseMacProxyState('Wi-Fi is not a recognized network service.')).toThrow(/unexpected networksetup output/);
  });

  it('reads the bypass list, and the sentence for none', () => {
    expect(parseMacBypass("There aren't any bypass domains set on Wi-Fi.\n")).toEqual([]);
    expect(parseMacBypass('*.local\n169.254/16\n')).toEqual(['*.local', '169.254/16']);
  });
});

describe('macOS backend against a networksetup stand-in', () => {
  function machine() {
    return new FakeNetworkSetup({
      'Wi-Fi': blankService({ web: { enabled: true, server: 'corp', port: 3128, authenticated: false }, bypass: ['*.corp'] }),
      Ethernet: blankService(),
      'Bluetooth PAN': blankService({ enabled: false }),
    });
  }

  it('set then restore gives every enabled service back what it had; disabled services are not touched', async () => {
    const mac = machine();
    const before = structuredClone([...mac.services]);
    const backend = macosBackend();
    const previous = await backend.read(mac.run);
    expect(previous.services.map((s) => s.name)).toEqual(['Wi-Fi', 'Ethernet']);
    await backend.apply(mac.run, target, previous);
    for (const name of ['Wi-Fi', 'Ethernet']) {
      expect(mac.services.get(name)!.web).toEqual({ enabled: true, server: '127.0.0.1', port: 10809, authenticated: false });
      expect(mac.services.get(name)!.socksfirewall).toMatchObject({ enabled: true, port: 10808 });
    }
    expect(mac.commands.some((c) => c.args.includes('Bluetooth PAN') && c.args[0]!.startsWith('-set'))).toBe(false);

    const report = await backend.restore(mac.run, previous, target);
    expect(report.restored).toEqual(['Wi-Fi', 'Ethernet']);
    const after = new Map(mac.services);
    for (const [name, service] of before) {
      const now = after.get(name)!;
      expect(now.web.enabled).toBe(service.web.enabled);
      expect(now.secureweb.enabled).toBe(service.secureweb.enabled);
      expect(now.socksfirewall.enabled).toBe(service.socksfirewall.enabled);
      expect(now.bypass).toEqual(service.bypass);
    }
    expect(after.get('Wi-Fi')!.web).toEqual({ enabled: true, server: 'corp', port: 3128, authenticated: false });
  });

  it('a service the user re-pointed meanwhile is kept; the others are restored', async () => {
    const mac = machine();
    const backend = macosBackend();
    const previous = await backend.read(mac.run);
    await backend.apply(mac.run, target, previous);
    await mac.run(ns('-setwebproxy', 'Ethernet', 'hotel-proxy', '8080'));
    const report = await backend.restore(mac.run, previous, target);
    expect(report).toMatchObject({ restored: ['Wi-Fi'], leftAlone: ['Ethernet'] });
    expect(mac.services.get('Ethernet')!.web.server).toBe('hotel-proxy');
  });

  it('a password-protected proxy is restored and the user is asked to re-enter its password', async () => {
    const mac = new FakeNetworkSetup({ 'Wi-Fi': blankService({ web: { enabled: true, server: 'corp', port: 3128, authenticated: true } }) });
    const backend = macosBackend();
    const previous = await backend.read(mac.run);
    await backend.apply(mac.run, target, previous);
    const report = await backend.restore(mac.run, previous, target);
    expect(report.warnings).toEqual(['Wi-Fi: the web proxy needs its password entered again in the network settings']);
  });
});
