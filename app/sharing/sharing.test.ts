import { chmod, mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DEFAULT_SETTINGS } from '../../shared/settings';
import { SHARING_CREDENTIALS_FILE, SharingCredentialsFile } from './credentials';
import { notPrivateAddresses, privateAddresses } from './lan-addresses';
import { HouseholdSharing } from './sharing';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'steadfast-sharing-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('the household credentials', () => {
  it('are made on first use, stored 0600, and the same ever after (a set-up TV keeps working)', async () => {
    expect(await readdir(dir)).toEqual([]);
    const first = new SharingCredentialsFile(dir).get();
    expect(first.username).toMatch(/^home[A-Za-z0-9]{6}$/);
    expect(first.password).toMatch(/^[A-Za-z0-9]{20}$/);
    const file = join(dir, SHARING_CREDENTIALS_FILE);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect(new SharingCredentialsFile(dir).get()).toEqual(first);
  });

  it('differ between machines', async () => {
    const other = join(dir, 'other');
    await mkdir(other);
    expect(new SharingCredentialsFile(other).get().password).not.toBe(new SharingCredentialsFile(dir).get().password);
  });

  it('an unreadable file is set aside, not overwritten, and a new pair is made', async () => {
    const file = join(dir, SHARING_CREDENTIALS_FILE);
    await writeFile(file, '{"version":1,"username":"x"');
    const fresh = new SharingCredentialsFile(dir).get();
    expect(fresh.password).toHaveLength(20);
    const names = await readdir(dir);
    const aside = names.find((n) => n.startsWith(`${SHARING_CREDENTIALS_FILE}.unreadable-`));
    expect(aside).toBeDefined();
    expect(await readFile(join(dir, aside!), 'utf8')).toBe('{"version":1,"username":"x"');
  });

  it('a file someone made readable to others is closed again', async () => {
    const file = join(dir, SHARING_CREDENTIALS_FILE);
    await writeFile(file, JSON.stringify({ version: 1, username: 'homeABCDEF', password: 'abcdefghijkmnpqrstuvw' }));
    await chmod(file, 0o644);
    expect(new SharingCredentialsFile(dir).get()).toEqual({ username: 'homeABCDEF', password: 'abcdefghijkmnpqrstuvw' });
    expect((await stat(file)).mode & 0o777).toBe(0o600);
  });
});

describe('privateAddresses', () => {
  it('offers the private, non-loopback addresses, IPv4 first, and nothing public', () => {
    const info = (address: string, internal = false) => ({ address, internal, family: address.includes(':') ? 'IPv6' : 'IPv4', netmask: '', mac: '', cidr: null }) as never;
    expect(
      privateAddresses({
        lo: [info('127.0.0.1', true), info('::1', true)],
        wlan0: [info('fd00::7'), info('192.168.1.5'), info('fe80::1')],
        eth0: [info('203.0.113.7'), info('10.0.0.3')],
      }),
    ).toEqual([
      { address: '192.168.1.5', interface: 'wlan0' },
      { address: '10.0.0.3', interface: 'eth0' },
      { address: 'fd00::7', interface: 'wlan0' },
    ]);
  });

  it('names the other addresses apart, so the page can say why they are not offered', () => {
    const info = (address: string, internal = false) => ({ address, internal, family: address.includes(':') ? 'IPv6' : 'IPv4', netmask: '', mac: '', cidr: null }) as never;
    expect(
      notPrivateAddresses({
        lo: [info('127.0.0.1', true)],
        wlan0: [info('2001:db8::5'), info('192.168.1.5'), info('fe80::1')],
        wwan0: [info('100.64.12.9')],
      }),
    ).toEqual([
      { address: '100.64.12.9', interface: 'wwan0' },
      { address: '2001:db8::5', interface: 'wlan0' },
    ]);
  });
});

describe('HouseholdSharing', () => {
  const settings = { ...DEFAULT_SETTINGS, sharing: { enabled: true, address: '192.168.1.5' } };
  it('counts refused logins and says where it listens only while connected', () => {
    let connected = false;
    const sharing = new HouseholdSharing({ settings: () => settings, connected: () => connected, credentials: () => ({ username: 'u', password: 'p' }), addresses: () => [], notPrivate: () => [] });
    expect(sharing.view()).toEqual({ addresses: [], notPrivate: [], listening: null, failedLogins: 0, lastFailedAt: null });
    connected = true;
    sharing.loginRefused(1000);
    sharing.loginRefused(2000);
    expect(sharing.view()).toEqual({ addresses: [], notPrivate: [], listening: { httpProxy: 'http://192.168.1.5:10809', socksProxy: 'socks5://192.168.1.5:10808' }, failedLogins: 2, lastFailedAt: 2000 });
  });

  it('writes an IPv6 address in brackets', () => {
    const v6 = { ...settings, sharing: { enabled: true, address: 'fd00::7' } };
    const sharing = new HouseholdSharing({ settings: () => v6, connected: () => true, credentials: () => ({ username: 'u', password: 'p' }), addresses: () => [] });
    expect(sharing.view().listening?.httpProxy).toBe('http://[fd00::7]:10809');
  });
});
