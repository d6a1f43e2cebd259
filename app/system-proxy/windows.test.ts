import { describe, expect, it } from 'vitest';
import { FakeRegistry } from './testing/fake-registry';
import {
  INTERNET_SETTINGS_KEY,
  parseRegValues,
  parseWindowsSnapshot,
  windowsApplyCommands,
  windowsBackend,
  windowsIsOurs,
  windowsReadCommand,
  windowsRestoreCommands,
  winInetRefreshCommand,
} from './windows';

const target = { host: '127.0.0.1', httpPort: 10809, socksPort: 10808 };
const KEY = INTERNET_SETTINGS_KEY;

describe('Windows registry commands', () => {
  it('reads the whole Internet Settings key of the current user in one query', () => {
    expect(windowsReadCommand()).toEqual({ file: 'reg', args: ['query', 'HKCU\\Software\\Microsoft\\Windows\\CurrentVersion\\Internet Settings'] });
  });

  it('sets server and exceptions, sets a PAC aside, then switches the proxy on', () => {
    const previous = { ProxyEnable: 0, ProxyServer: null, ProxyOverride: null, AutoConfigURL: 'http://wpad/proxy.pac' };
    expect(windowsApplyCommands(target, previous)).toEqual([
      { file: 'reg', args: ['add', KEY, '/v', 'ProxyServer', '/t', 'REG_SZ', '/d', '127.0.0.1:10809', '/f'] },
      { file: 'reg', args: ['add', KEY, '/v', 'ProxyOverride', '/t', 'REG_SZ', '/d', 'localhost;127.*;[::1];<local>', '/f'] },
      { file: 'reg', args: ['delete', KEY, '/v', 'AutoConfigURL', '/f'] },
      { file: 'reg', args: ['add', KEY, '/v', 'ProxyEnable', '/t', 'REG_DWORD', '/d', '1', '/f'] },
    ]);
  });

  it('leaves AutoConfigURL alone when the user had none', () => {
    const commands = windowsApplyCommands(target, { ProxyEnable: null, ProxyServer: null, ProxyOverride: null, AutoConfigURL: null });
    expect(commands.flatMap((c) => c.args)).not.toContain('AutoConfigURL');
  });

  it('restores every value, deleting the ones that did not exist, the switch last', () => {
    expect(windowsRestoreCommands({ ProxyEnable: 0, ProxyServer: 'corp:3128', ProxyOverride: null, AutoConfigURL: 'http://wpad/p.pac' })).toEqual([
      { file: 'reg', args: ['add', KEY, '/v', 'ProxyServer', '/t', 'REG_SZ', '/d', 'corp:3128', '/f'] },
      { file: 'reg', args: ['delete', KEY, '/v', 'ProxyOverride', '/f'] },
      { file: 'reg', args: ['add', KEY, '/v', 'AutoConfigURL', '/t', 'REG_SZ', '/d', 'http://wpad/p.pac', '/f'] },
      { file: 'reg', args: ['add', KEY, '/v', 'ProxyEnable', '/t', 'REG_DWORD', '/d', '0', '/f'] },
    ]);
    expect(windowsRestoreCommands({ ProxyEnable: null, ProxyServer: null, ProxyOverride: null, AutoConfigURL: null }).at(-1)).toEqual({
      file: 'reg',
      args: ['delete', KEY, '/v', 'ProxyEnable', '/f'],
    });
  });

  it('brackets an IPv6 proxy host', () => {
    const [server] = windowsApplyCommands({ host: '::1', httpPort: 8080, socksPort: null }, { ProxyEnable: 0, ProxyServer: null, ProxyOverride: null, AutoConfigURL: null });
    expect(server!.args).toContain('[::1]:8080');
  });

  it('refreshes WinINet with SETTINGS_CHANGED (39) then REFRESH (37) through PowerShell', () => {
    const cmd = winInetRefreshCommand();
    expect(cmd.file).toBe('powershell.exe');
    expect(cmd.args.slice(0, 5)).toEqual(['-NoProfile', '-NonInteractive', '-ExecutionPolicy', 'Bypass', '-Command']);
    const script = cmd.args[5]!;
    expect(script).toContain('wininet.dll');
    expect(script.indexOf(', 39,')).toBeGreaterThan(0);
    expect(script.indexOf(', 37,')).toBeGreaterThan(script.indexOf(', 39,'));
  });
});

describe('reading reg.exe output', () => {
  const listing = [
    '',
    'HKEY_CURRENT_USER\\Software\\Microsoft\\Windows\\CurrentVersion\\Internet Settings',
    '    CertificateRevocation    REG_DWORD    0x1',
    '    ProxyEnable    REG_DWORD    0x0',
    '    ProxyServer    REG_SZ    http=corp proxy:80;https=corp:443',
    '    ProxyOverride    REG_SZ    ',
    '    ZonesSecurityUpgrade    REG_BINARY    C4A1B2',
    '',
    'HKEY_CURRENT_USER\\Software\\Microsoft\\Windows\\CurrentVersion\\Internet Settings\\5.0',
    '',
  ].join('\r\n');

  it('reads DWORDs in hex, strings with spaces and empty strings, and skips subkeys', () => {
    const values = parseRegValues(listing);
    expect(values.get('proxyenable')).toBe(0);
    expect(values.get('proxyserver')).toBe('http=corp proxy:80;https=corp:443');
    expect(values.get('proxyoverride')).toBe('');
    expect([...values.keys()]).not.toContain('HKEY_CURRENT_USER\\Software\\Microsoft\\Windows\\CurrentVersion\\Internet Settings\\5.0');
  });

  it('a value that is not listed is recorded as absent (null), not as empty', () => {
    expect(parseWindowsSnapshot(listing)).toEqual({ ProxyEnable: 0, ProxyServer: 'http=corp proxy:80;https=corp:443', ProxyOverride: '', AutoConfigURL: null });
  });

  it('knows its own settings from the user’s', () => {
    expect(windowsIsOurs({ ProxyEnable: 1, ProxyServer: '127.0.0.1:10809', ProxyOverride: null, AutoConfigURL: null }, target)).toBe(true);
    expect(windowsIsOurs({ ProxyEnable: 0, ProxyServer: '127.0.0.1:10809', ProxyOverride: null, AutoConfigURL: null }, target)).toBe(false);
    expect(windowsIsOurs({ ProxyEnable: 1, ProxyServer: 'corp:3128', ProxyOverride: null, AutoConfigURL: null }, target)).toBe(false);
  });
});

describe('Windows backend against a registry stand-in', () => {
  it('set then restore gives back exactly what the user had, PAC included, and tells WinINet each time', async () => {
    const user = { ProxyEnable: 0, ProxyServer: 'corp:3128', AutoConfigURL: 'http://wpad/proxy.pac', CertificateRevocation: 1 };
    const registry = new FakeRegistry(user);
    const backend = windowsBackend();
    const previous = await backend.read(registry.run);
    await backend.apply(registry.run, target, previous);
    expect(registry.get('ProxyEnable')).toBe(1);
    expect(registry.get('ProxyServer')).toBe('127.0.0.1:10809');
    expect(registry.get('AutoConfigURL')).toBeUndefined();
    expect(registry.refreshes).toBe(1);

    const report = await backend.restore(registry.run, previous, target);
    expect(report).toEqual({ restored: ['Windows'], leftAlone: [], warnings: [] });
    expect(Object.fromEntries([...registry.values].map(([k, v]) => [k, v.data]))).toEqual(user);
    expect(registry.refreshes).toBe(2);
  });

  it('a proxy the user set by hand meanwhile is kept', async () => {
    const registry = new FakeRegistry({ ProxyEnable: 0 });
    const backend = windowsBackend();
    const previous = await backend.read(registry.run);
    await backend.apply(registry.run, target, previous);
    await registry.run({ file: 'reg', args: ['add', KEY, '/v', 'ProxyServer', '/t', 'REG_SZ', '/d', 'other:8080', '/f'] });
    expect(await backend.restore(registry.run, previous, target)).toEqual({ restored: [], leftAlone: ['Windows'], warnings: [] });
    expect(registry.get('ProxyServer')).toBe('other:8080');
  });
});
