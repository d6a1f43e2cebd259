import { describe, expect, it } from 'vitest';
import { isRefusedLogin } from './share-inbounds';
import { profileFromTable } from './testing/profile';
import { sampleServer } from './samples';
import { tunnelConfig } from './tunnel-config';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const xray = profileFromTable('xray', '26.3.27');
const base = { listen: '127.0.0.1', httpPort: 10809, socksPort: 10808, apiPort: 10085, server: sampleServer('vmess'), core: xray };
const share = { address: '192.168.1.5', httpPort: 10809, socksPort: 10808, username: 'sf-a1b2c3', password: 'secret-of-24-characters!' };

describe('household sharing inbounds', () => {
  const config = tunnelConfig({ ...base, share }) as Json;
  const byTag = (tag: string) => config.inbounds.find((i: Json) => i.tag === tag);

  it('adds password-guarded HTTP and SOCKS5 inbounds on the LAN address and leaves loopback open', () => {
    expect(byTag('http-lan')).toEqual({
      tag: 'http-lan',
      listen: '192.168.1.5',
      port: 10809,
      protocol: 'http',
      settings: { accounts: [{ user: 'sf-a1b2c3', pass: 'secret-of-24-characters!' }], allowTransparent: false },
    });
    expect(byTag('socks-lan')).toMatchObject({
      listen: '192.168.1.5',
      port: 10808,
      protocol: 'socks',
      settings: { auth: 'password', accounts: [{ user: 'sf-a1b2c3', pass: 'secret-of-24-characters!' }], udp: true, ip: '192.168.1.5' },
    });
    expect(byTag('http-in')).toMatchObject({ listen: '127.0.0.1', settings: { allowTransparent: false } });
    expect(byTag('http-in').settings).not.toHaveProperty('accounts');
    expect(byTag('socks-in').settings.auth).toBe('noauth');
  });

  it("keeps LAN devices off this machine's loopback services, by address and by name", () => {
    expect(config.routing.rules.slice(1, 3)).toEqual([
      { type: 'field', inboundTag: ['http-lan', 'socks-lan'], ip: ['127.0.0.0/8', '::1/128'], outboundTag: 'block' },
      { type: 'field', inboundTag: ['http-lan', 'socks-lan'], domain: ['domain:localhost'], outboundTag: 'block' },
    ]);
  });

  it('without sharing there are no LAN inbounds', () => {
    const plain = tunnelConfig(base) as Json;
    expect(plain.inbounds.map((i: Json) => i.tag)).toEqual(['http-in', 'socks-in', 'api']);
  });

  it.each([
    ['a public address', '8.8.8.8'],
    ['every interface', '0.0.0.0'],
    ['every IPv6 interface', '::'],
    ['a documentation address', '203.0.113.5'],
    ['a carrier-grade NAT address', '100.64.0.1'],
    ['loopback (it is open already)', '127.0.0.1'],
    ['just outside 172.16/12', '172.32.0.1'],
    ['a public IPv6 address', '2001:db8::1'],
  ])('refuses %s (%s) whoever asks', (_, address) => {
    expect(() => tunnelConfig({ ...base, share: { ...share, address } })).toThrow(/household sharing refused: .*not a private LAN address/);
  });

  it.each(['10.0.0.7', '172.31.255.1', '192.168.77.1', 'fd12:3456::1', 'fe80::1'])('accepts the private address %s', (address) => {
    expect(() => tunnelConfig({ ...base, share: { ...share, address } })).not.toThrow();
  });

  it('refuses sharing without credentials', () => {
    expect(() => tunnelConfig({ ...base, share: { ...share, password: '' } })).toThrow(/username and a password/);
  });
});

describe('isRefusedLogin', () => {
  it.each([
    ['wrong password (Xray 26)', '2026/12/02 01:46:14.533171 [Info] [1508274864] app/proxyman/inbound: connection ends > proxy/socks: failed to read request > proxy/socks: invalid username or password', true],
    ['no credentials offered', '2026/12/02 01:46:14.512035 [Info] [933242311] app/proxyman/inbound: connection ends > proxy/socks: failed to read request > proxy/socks: no matching auth method', true],
    ['SOCKS4 to a password inbound', '[Info] [810741031] app/proxyman/inbound: connection ends > proxy/socks: failed to read request > proxy/socks: socks 4 is not allowed when auth is required.', true],
    ['v2ray 4.34 words', '[Info] [1] v2ray.com/core/app/proxyman/inbound: connection ends > v2ray.com/core/proxy/socks: failed to read request > v2ray.com/core/proxy/socks: invalid username or password', true],
    ['an accepted request', '[Info] [513139474] proxy/socks: TCP Connect request to tcp:127.0.0.1:31803', false],
    ['a dial failure', '[Info] [1] app/proxyman/outbound: failed to process outbound traffic > proxy/vmess/outbound: failed to find an available destination', false],
  ])('%s', (_, line, refused) => {
    expect(isRefusedLogin(line)).toBe(refused);
  });
});
