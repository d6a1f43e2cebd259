import { describe, expect, it } from 'vitest';
import { kdeApplyCommands, kdeBackend, kdeIsOurs, kdeProxyValue, kdeReadCommands, kdeReloadCommand, kdeRestoreCommands, parseKdeSnapshot } from './kde';
import { FakeKConfig } from './testing/fake-kconfig';

const target = { host: '127.0.0.1', httpPort: 10809, socksPort: 10808 };
const w = (v: 5 | 6, ...rest: string[]) => ({ file: `kwriteconfig${v}`, args: ['--file', 'kioslaverc', '--group', 'Proxy Settings', '--key', ...rest] });

describe('KDE kioslaverc commands', () => {
  it('reads the proxy keys with the kreadconfig of the Plasma version', () => {
    expect(kdeReadCommands(6)[0]).toEqual({ file: 'kreadconfig6', args: ['--file', 'kioslaverc', '--group', 'Proxy Settings', '--key', 'ProxyType'] });
    expect(kdeReadCommands(5).map((c) => c.args.at(-1))).toEqual(['ProxyType', 'httpProxy', 'httpsProxy', 'socksProxy', 'NoProxyFor']);
  });

  it('writes the proxies as KDE does ("scheme://host port"), the exceptions, then ProxyType=1', () => {
    expect(kdeApplyCommands(target, 5)).toEqual([
      w(5, 'httpProxy', 'http://127.0.0.1 10809'),
      w(5, 'httpsProxy', 'http://127.0.0.1 10809'),
      w(5, 'socksProxy', 'socks://127.0.0.1 10808'),
      w(5, 'NoProxyFor', 'localhost,127.0.0.0/8,::1'),
      w(5, 'ProxyType', '1'),
    ]);
    expect(kdeProxyValue('http', '::1', 8080)).toBe('http://[::1] 8080');
  });

  it('restores each key, deleting the ones that were unset', () => {
    expect(kdeRestoreCommands({ values: { ProxyType: '0', httpProxy: 'http://corp 3128', httpsProxy: null, socksProxy: null, NoProxyFor: null } }, 6)).toEqual([
      w(6, 'httpProxy', 'http://corp 3128'),
      w(6, 'httpsProxy', '--delete'),
      w(6, 'socksProxy', '--delete'),
      w(6, 'NoProxyFor', '--delete'),
      w(6, 'ProxyType', '0'),
    ]);
  });

  it('tells running KIO workers to re-read the file with the signal KDE itself sends', () => {
    expect(kdeReloadCommand()).toEqual({
      file: 'dbus-send',
      args: ['--type=signal', '/KIO/Scheduler', 'org.kde.KIO.Scheduler.reparseSlaveConfiguration', 'string:'],
    });
  });

  it('reads empty output as unset', () => {
    expect(parseKdeSnapshot(['1\n', 'http://corp 3128\n', '\n', '', '\n'])).toEqual({
      values: { ProxyType: '1', httpProxy: 'http://corp 3128', httpsProxy: null, socksProxy: null, NoProxyFor: null },
    });
    expect(kdeIsOurs(parseKdeSnapshot(['1', 'http://127.0.0.1 10809', '', '', '']), target)).toBe(true);
    expect(kdeIsOurs(parseKdeSnapshot(['0', 'http://127.0.0.1 10809', '', '', '']), target)).toBe(false);
  });
});

describe('KDE backend against a kconfig stand-in', () => {
  it('set then restore gives back exactly what the user had, and KIO is told both times', async () => {
    const user = { ProxyType: '1', httpProxy: 'http://corp 3128', NoProxyFor: '.corp' };
    const kconfig = new FakeKConfig(user);
    const backend = kdeBackend(5);
    const previous = await backend.read(kconfig.run);
    await backend.apply(kconfig.run, target, previous);
    expect(kconfig.values.get('httpProxy')).toBe('http://127.0.0.1 10809');
    expect(await backend.restore(kconfig.run, previous, target)).toEqual({ restored: ['KDE'], leftAlone: [], warnings: [] });
    expect(Object.fromEntries(kconfig.values)).toEqual(user);
    expect(kconfig.reloads).toBe(2);
  });

  it('a proxy switched off by the user meanwhile stays off', async () => {
    const kconfig = new FakeKConfig({ ProxyType: '0' });
    const backend = kdeBackend(6);
    const previous = await backend.read(kconfig.run);
    await backend.apply(kconfig.run, target, previous);
    kconfig.values.set('ProxyType', '4');
    expect((await backend.restore(kconfig.run, previous, target)).leftAlone).toEqual(['KDE']);
    expect(kconfig.values.get('ProxyType')).toBe('4');
  });
});
