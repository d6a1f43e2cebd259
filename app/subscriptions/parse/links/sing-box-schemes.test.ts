import { describe, expect, it } from 'vitest';
import type { Server } from '../../../../shared/domain/server';
import { shareLink } from '../../share/share-link';
import { parseLinkList, parseLinksInText } from './index';

const pct = encodeURIComponent;
/** An X25519 public key in base64url, as REALITY links carry it. */
const REALITY_KEY = '58n0Yz_zrK8EhIvLN8MRX-_f0hjqGJRoI3vvVoVhemA';

function one(link: string) {
  const result = parseLinkList(link);
  return { server: result.servers[0], reason: result.rejected[0]?.reason };
}

describe('share links of the protocols sing-box carries', () => {
  it.each<[string, string, Record<string, unknown>]>([
    [
      'hysteria:// as Hysteria v1 writes it: auth, peer, speeds, xplus obfuscation, hopping ports',
      `hysteria://hy1.example.com:443?protocol=udp&auth=${pct('a u+th')}&peer=sni.example.com&insecure=1&upmbps=20&downmbps=100&alpn=hysteria&obfs=xplus&obfsParam=${pct('ob fs')}&mport=443,20000-30000#${pct('🇩🇪 Hy1')}`,
      {
        name: '🇩🇪 Hy1',
        protocol: 'hysteria',
        address: 'hy1.example.com',
        port: 443,
        auth: 'a u+th',
        upMbps: 20,
        downMbps: 100,
        obfs: 'ob fs',
        portHopping: '443,20000-30000',
        carrier: 'udp',
        security: { type: 'tls', sni: 'sni.example.com', alpn: ['hysteria'], allowInsecure: true },
      },
    ],
    ['hy:// is the same scheme', 'hy://1.2.3.4:8443?auth=x&upmbps=10&downmbps=50#short', { protocol: 'hysteria', address: '1.2.3.4', port: 8443, auth: 'x', upMbps: 10, downMbps: 50 }],
    [
      'anytls:// as anytls-go and Mihomo write it',
      `anytls://${pct('p@ss word')}@any.example.com:8443/?sni=real.example.com&insecure=1&fp=chrome#AnyTLS`,
      { name: 'AnyTLS', protocol: 'anytls', address: 'any.example.com', port: 8443, password: 'p@ss word', security: { type: 'tls', sni: 'real.example.com', fingerprint: 'chrome', allowInsecure: true } },
    ],
    ['anytls:// without a port is on 443', 'anytls://pw@[2001:db8::5]#v6', { protocol: 'anytls', address: '2001:db8::5', port: 443, password: 'pw' }],
    [
      'naive+https:// with a user',
      `naive+https://user:${pct('pa:ss')}@naive.example.com:443#Naive`,
      { name: 'Naive', protocol: 'naive', address: 'naive.example.com', port: 443, username: 'user', password: 'pa:ss', security: { type: 'tls' } },
    ],
    ['naive+quic:// is NaiveProxy over HTTP/3', 'naive+quic://u:p@n.example.com:8443#q', { protocol: 'naive', port: 8443, quic: true }],
  ])('%s', (_name, link, expected) => {
    const { server, reason } = one(link);
    expect(reason).toBeUndefined();
    expect(server).toMatchObject(expected);
  });

  it.each<[string, string, RegExp]>([
    ['Hysteria v1 without its speeds', 'hysteria://h.example.com:443?auth=x', /^hysteria: the link gives no upmbps and downmbps, which Hysteria v1 needs$/],
    ['Hysteria v1 without a port', 'hysteria://h.example.com?auth=x&upmbps=1&downmbps=1', /^hysteria: .*port/],
    ['xplus without its password', 'hysteria://h.example.com:443?upmbps=1&downmbps=1&obfs=xplus', /^hysteria: obfs xplus without obfsParam$/],
    ['AnyTLS without a password', 'anytls://@a.example.com:443', /^anytls: .*password/],
    ['AnyTLS over no TLS at all', 'anytls://pw@a.example.com:443?security=none', /^anytls: security none is not one AnyTLS runs over \(tls or reality\)$/],
    ['AnyTLS behind REALITY without its public key', 'anytls://pw@a.example.com:443?security=reality&sni=www.example.com', /^anytls: REALITY without a public key \(pbk\)$/],
  ])('refuses %s, saying why', (_name, link, reason) => {
    expect(one(link).reason).toMatch(reason);
  });

  it('AnyTLS behind REALITY, as v2rayN and Throne write it, stays REALITY (read as TLS its handshake would go to the borrowed site)', () => {
    const { server, reason } = one(`anytls://pw@a.example.com:443?security=reality&sni=www.microsoft.com&pbk=${REALITY_KEY}&sid=6b&fp=chrome#R`);
    expect(reason).toBeUndefined();
    expect(server).toMatchObject({ protocol: 'anytls', security: { type: 'reality', sni: 'www.microsoft.com', publicKey: REALITY_KEY, shortId: '6b', fingerprint: 'chrome' } });
    const shared = { ...server!, id: 'x', subscriptionId: 's' } as Server;
    expect(one(shareLink(shared)).server).toEqual(server);
  });

  it('finds them in prose, as channel posts paste them', () => {
    const found = parseLinksInText('Server: anytls://pw@a.example.com:443#A and naive+https://u:p@n.example.com#N 👉 hy://h.example.com:443?upmbps=1&downmbps=2');
    expect(found?.servers.map((s) => s.protocol)).toEqual(['anytls', 'naive', 'hysteria']);
  });

  it.each([
    `hysteria://hy1.example.com:443?protocol=udp&auth=${pct('a u+th')}&peer=sni.example.com&insecure=1&upmbps=20&downmbps=100&obfs=xplus&obfsParam=x&mport=443,20000-30000#${pct('Hy 1')}`,
    `anytls://${pct('p@ss word')}@any.example.com:8443/?sni=real.example.com&fp=chrome&alpn=h2,http%2F1.1#AnyTLS`,
    `naive+https://user:${pct('pa:ss')}@naive.example.com:443#Naive`,
    'naive+quic://u:p@n.example.com:8443#q',
  ])('shared again, %s reads back as the same server', (link) => {
    const parsed = one(link).server!;
    const server = { ...parsed, id: 'x', subscriptionId: 's' } as Server;
    expect(one(shareLink(server)).server).toEqual(parsed);
  });
});
