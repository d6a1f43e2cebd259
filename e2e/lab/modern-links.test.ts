import { describe, expect, it } from 'vitest';
import { parseLinkList } from '../../app/subscriptions/parse/links';
import { modernShareLink } from './modern-links';
import { MODERN_KINDS, REALITY_SERVER_NAME, buildModernServers, modernExitAddress, modernRelayAddress, urlThrough } from './modern-world';
import { exitAddress, relayAddress } from './world';

const PIN = 'ab'.repeat(32);
const specs = buildModernServers(1, [20, 300]);
const dial = { host: '127.3.0.1', port: 4000, ports: [4000, 4001, 4002, 4003] };
const parsed = (kind: string) => {
  const spec = specs.find((s) => s.kind === kind)!;
  const result = parseLinkList(modernShareLink(spec, dial, PIN));
  expect(result.rejected).toEqual([]);
  return { spec, server: result.servers[0]! };
};

describe('the modern block as data', () => {
  it('is the same for the same seed, other credentials and keys for another', () => {
    expect(buildModernServers(1, [20, 300])).toEqual(specs);
    const other = buildModernServers(2, [20, 300]);
    expect(other.map((s) => s.kind)).toEqual([...MODERN_KINDS]);
    expect(other[0]!.uuid).not.toBe(specs[0]!.uuid);
    expect(other[0]!.reality.publicKey).not.toBe(specs[0]!.reality.publicKey);
  });

  it('gives every server its own exit and relay address, outside the v2ray world’s plan and never the user’s', () => {
    const v2ray = new Set(Array.from({ length: 1000 }, (_, i) => [exitAddress(i), relayAddress(i)]).flat());
    const mine = specs.flatMap((s) => [s.exitIp, s.relayAddress]);
    expect(new Set(mine).size).toBe(mine.length);
    expect(mine.filter((a) => v2ray.has(a) || a === '127.0.0.1' || a === '127.0.0.200')).toEqual([]);
    expect(mine.every((a) => a.startsWith('127.'))).toBe(true);
    expect(modernExitAddress(250)).toBe('127.2.1.1');
    expect(modernRelayAddress(0)).toBe('127.3.0.1');
  });

  it('asks for the target through the WireGuard network for WireGuard only', () => {
    expect(urlThrough({ kind: 'wireguard' }, 'http://127.0.0.1:8080/bytes/5')).toBe('http://10.66.0.1:8080/bytes/5');
    expect(urlThrough({ kind: 'tuic-v5' }, 'http://127.0.0.1:8080/bytes/5')).toBe('http://127.0.0.1:8080/bytes/5');
  });
});

describe('modern share links read back with the app’s parser', () => {
  it('VLESS + REALITY + Vision', () => {
    const { spec, server } = parsed('vless-reality-vision');
    expect(server).toMatchObject({ protocol: 'vless', uuid: spec.uuid, flow: 'xtls-rprx-vision', transport: { network: 'tcp' } });
    expect(server.security).toMatchObject({ type: 'reality', sni: REALITY_SERVER_NAME, publicKey: spec.reality.publicKey, shortId: spec.reality.shortId, fingerprint: 'chrome' });
  });

  it.each([
    ['vless-xhttp', 'vless', 'xhttp', 'none'],
    ['vless-grpc-tls', 'vless', 'grpc', 'tls'],
    ['vmess-httpupgrade', 'vmess', 'httpupgrade', 'none'],
    ['vless-httpupgrade', 'vless', 'httpupgrade', 'none'],
    ['trojan-grpc-tls', 'trojan', 'grpc', 'tls'],
  ] as const)('%s: %s over %s, security %s, the pin on TLS', (kind, protocol, network, security) => {
    const { spec, server } = parsed(kind);
    expect(server).toMatchObject({ protocol, transport: { network }, security: { type: security } });
    if (network === 'grpc') expect(server.transport.serviceName).toBe(spec.serviceName);
    else expect(server.transport.path).toBe(spec.path);
    if (security === 'tls') expect(server.security.pinnedCertSha256).toEqual([PIN]);
  });

  it('Hysteria2 with salamander and the relay’s port range', () => {
    const { spec, server } = parsed('hysteria2-salamander-hopping');
    expect(server).toMatchObject({ protocol: 'hysteria2', port: 4000, portHopping: '4000-4003', password: spec.password, obfs: { type: 'salamander', password: spec.obfsPassword } });
    expect(server.security.pinnedCertSha256).toEqual([PIN]);
  });

  it('TUIC v5, WireGuard, ShadowTLS v3, Shadowsocks 2022', () => {
    expect(parsed('tuic-v5').server).toMatchObject({ protocol: 'tuic', congestionControl: 'bbr', udpRelayMode: 'native' });
    const wg = parsed('wireguard');
    expect(wg.server).toMatchObject({ protocol: 'wireguard', privateKey: wg.spec.wireguard.client.privateKey, publicKey: wg.spec.wireguard.server.publicKey, localAddresses: ['10.66.0.2/32'] });
    const stls = parsed('shadowtls-v3');
    expect(stls.server).toMatchObject({ protocol: 'shadowsocks', method: 'aes-128-gcm', plugin: { name: 'shadow-tls' } });
    expect((stls.server as { plugin: { options: string } }).plugin.options).toContain('version=3');
    const ss = parsed('shadowsocks-2022');
    expect(ss.server).toMatchObject({ protocol: 'shadowsocks', method: '2022-blake3-aes-128-gcm', password: ss.spec.ss2022Key });
  });

  it('AnyTLS and Hysteria v1: servers only sing-box carries, with their speeds, obfuscation and pin', () => {
    const any = parsed('anytls');
    expect(any.server).toMatchObject({ protocol: 'anytls', password: any.spec.password, security: { type: 'tls', fingerprint: 'chrome' } });
    expect(any.server.security.pinnedCertSha256).toEqual([PIN]);
    const hy = parsed('hysteria-v1');
    expect(hy.server).toMatchObject({ protocol: 'hysteria', auth: hy.spec.password, upMbps: 100, downMbps: 100, obfs: hy.spec.obfsPassword, security: { alpn: ['hysteria'] } });
  });
});
