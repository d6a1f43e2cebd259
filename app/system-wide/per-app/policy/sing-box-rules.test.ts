import { describe, expect, it } from 'vitest';
import { singBoxTunConfig } from '../../tun/policy/sing-box-tun';
import { type PerAppPlatform, singBoxPerApp, withPerApp } from './sing-box-rules';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const bypass = (entries: string[]) => ({ mode: 'bypass' as const, bypass: entries, only: ['/kept/for/later'] });
const only = (entries: string[]) => ({ mode: 'only' as const, bypass: ['/kept/for/later'], only: entries });

describe('singBoxPerApp: each platform matches apps its own way', () => {
  it.each<[string, PerAppPlatform, string[], Record<string, unknown>[], { entry: string; reason: string }[]]>([
    [
      'Linux: paths, names and uids, one rule per kind (sing-box ANDs fields)',
      'linux',
      ['/usr/bin/firefox', 'discord', 'uid:1001', '/opt/bank/bank', 'discord'],
      [
        { process_path: ['/usr/bin/firefox', '/opt/bank/bank'], outbound: 'direct' },
        { process_name: ['discord'], outbound: 'direct' },
        { user_id: [1001], outbound: 'direct' },
      ],
      [],
    ],
    [
      'macOS: a .app bundle covers every executable inside it; a uid means nothing there',
      'darwin',
      ['/Applications/Discord.app', '/usr/local/bin/curl', 'Telegram', 'uid:501'],
      [
        { process_path_regex: ['^/Applications/Discord\\.app/'], outbound: 'direct' },
        { process_path: ['/usr/local/bin/curl'], outbound: 'direct' },
        { process_name: ['Telegram'], outbound: 'direct' },
      ],
      [{ entry: 'uid:501', reason: 'a Linux user id has no meaning on this system' }],
    ],
    [
      'Windows: paths and names without regard to case',
      'win32',
      ['C:\\Program Files\\Bank\\bank.exe', 'Discord.exe'],
      [{ process_path_regex: ['(?i)^C:\\\\Program Files\\\\Bank\\\\bank\\.exe$', '(?i)(^|[\\\\/])Discord\\.exe$'], outbound: 'direct' }],
      [],
    ],
  ])('%s', (_, platform, entries, rules, skipped) => {
    expect(singBoxPerApp(bypass(entries), platform)).toEqual({ rules, final: null, hijackDns: true, skipped });
  });

  it('the Windows patterns match what Windows would call the same file', () => {
    const [path, name] = singBoxPerApp(bypass(['C:\\Program Files\\Bank\\bank.exe', 'Discord.exe']), 'win32').rules[0]!.process_path_regex as string[];
    const regex = (source: string) => new RegExp(source.replace('(?i)', ''), 'i');
    expect(regex(path!).test('c:\\program files\\bank\\BANK.EXE')).toBe(true);
    expect(regex(path!).test('C:\\Program Files\\Bank\\bank.exe.bak')).toBe(false);
    expect(regex(name!).test('C:\\Users\\me\\AppData\\Local\\Discord\\app-1.0\\discord.exe')).toBe(true);
    expect(regex(name!).test('C:\\Tools\\notdiscord.exe')).toBe(false);
  });

  it('"only": the listed apps go to the core, everything else direct, and DNS is left to the network', () => {
    expect(singBoxPerApp(only(['/usr/bin/cursor']), 'linux')).toEqual({ rules: [{ process_path: ['/usr/bin/cursor'], outbound: 'core' }], final: 'direct', hijackDns: false, skipped: [] });
  });

  it('off, or an empty "bypass" list, changes nothing', () => {
    expect(singBoxPerApp({ mode: 'off', bypass: ['/usr/bin/x'], only: ['/usr/bin/y'] }, 'linux').rules).toEqual([]);
    const config = singBoxTunConfig({ platform: 'linux', socksPort: 10808, directPort: 10899, corePath: '/opt/core/xray', bypassLan: true });
    expect(withPerApp(config, singBoxPerApp(bypass([]), 'linux'))).toBe(config);
  });
});

describe('withPerApp: the rules sit after the core’s own bypass and before sniffing and DNS', () => {
  const base = singBoxTunConfig({ platform: 'linux', socksPort: 10808, directPort: 10899, corePath: '/opt/core/xray', bypassLan: true }) as Json;

  it('bypass', () => {
    const config = withPerApp(base, singBoxPerApp(bypass(['/usr/bin/firefox']), 'linux')) as Json;
    expect(config.route.final).toBe('core');
    expect(config.route.rules).toEqual([
      { process_path: ['/opt/core/xray'], outbound: 'direct' },
      { inbound: ['direct-in'], outbound: 'direct' },
      { process_path: ['/usr/bin/firefox'], outbound: 'direct' },
      { action: 'sniff' },
      { protocol: 'dns', action: 'hijack-dns' },
      { ip_is_private: true, outbound: 'direct' },
    ]);
  });

  it('only', () => {
    const config = withPerApp(base, singBoxPerApp(only(['/usr/bin/cursor', 'uid:1001']), 'linux')) as Json;
    expect(config.route.final).toBe('direct');
    expect(config.route.rules).toEqual([
      { process_path: ['/opt/core/xray'], outbound: 'direct' },
      { inbound: ['direct-in'], outbound: 'direct' },
      { process_path: ['/usr/bin/cursor'], outbound: 'core' },
      { user_id: [1001], outbound: 'core' },
      { action: 'sniff' },
      { ip_is_private: true, outbound: 'direct' },
    ]);
  });
});
