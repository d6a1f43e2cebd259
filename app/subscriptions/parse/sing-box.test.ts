import { describe, expect, it } from 'vitest';
import { parseSubscription } from './index';

const UUID_1 = 'a7e505a9-d63f-48ac-92f3-85ebcd7d7018';
const UUID_2 = 'ca578b3b-38d5-4ec0-b9de-9af751aa5146';
const PBK = '58n0Yz_zrK8EhIvLN8MRX-_f0hjqGJRoI3vvVoVhemA';
const KEY_32 = 'sL8zmnxyjPS/2yCNOjGTYE+MNT0d1n7qyX5MTGyjmPQ=';
const WG_PRIVATE = 'AN0uPeVcrocvIXzzOfHKS+GOWYIK4+ryYpzqA+ExEWs=';
const WG_PUBLIC = 'bmXOC+F1FxEMF9dyiK2H5/1SUtzH0JuVo51h2wPfgyo=';

/** A sing-box client config as subscription converters emit it. */
const CONFIG = {
  log: { level: 'warn' },
  outbounds: [
    { type: 'selector', tag: 'proxy', outbounds: ['auto', '🇩🇪 Reality', 'vmess-ws'] },
    { type: 'urltest', tag: 'auto', outbounds: ['🇩🇪 Reality', 'vmess-ws'] },
    {
      type: 'vless',
      tag: '🇩🇪 Reality',
      server: '91.107.130.12',
      server_port: 443,
      uuid: UUID_1,
      flow: 'xtls-rprx-vision',
      tls: { enabled: true, server_name: 'www.speedtest.net', utls: { enabled: true, fingerprint: 'chrome' }, reality: { enabled: true, public_key: PBK, short_id: '6ba851' } },
    },
    {
      type: 'vmess',
      tag: 'vmess-ws',
      server: 'cdn.example.com',
      server_port: 443,
      uuid: UUID_2,
      security: 'auto',
      alter_id: 0,
      tls: { enabled: true, server_name: 'cdn.example.com', insecure: true, alpn: ['http/1.1'] },
      transport: { type: 'ws', path: '/vm', headers: { Host: 'cdn.example.com' } },
    },
    {
      type: 'trojan',
      tag: 'trojan-grpc',
      server: 'tr.example.net',
      server_port: 2096,
      password: 'tr-secret',
      tls: { enabled: true, server_name: 'tr.example.net' },
      transport: { type: 'grpc', service_name: 'tr' },
    },
    { type: 'shadowsocks', tag: 'ss-2022', server: '198.51.100.4', server_port: 8388, method: '2022-blake3-aes-256-gcm', password: KEY_32 },
    {
      type: 'hysteria2',
      tag: 'hy2',
      server: 'hy.example.com',
      server_port: 8443,
      password: 'hy-secret',
      up_mbps: 50,
      down_mbps: 200,
      obfs: { type: 'salamander', password: 'obfs-secret' },
      tls: { enabled: true, server_name: 'hy.example.com', alpn: ['h3'] },
    },
    {
      type: 'tuic',
      tag: 'tuic',
      server: 'tuic.example.com',
      server_port: 443,
      uuid: UUID_1,
      password: 'tuic-secret',
      congestion_control: 'bbr',
      udp_relay_mode: 'quic',
      tls: { enabled: true, server_name: 'tuic.example.com', alpn: ['h3'] },
    },
    {
      type: 'wireguard',
      tag: 'wg-legacy',
      server: '162.159.192.1',
      server_port: 2408,
      local_address: ['172.16.0.2/32', '2606:4700:110:8f81::2/128'],
      private_key: WG_PRIVATE,
      peer_public_key: WG_PUBLIC,
      reserved: [1, 2, 3],
      mtu: 1280,
    },
    { type: 'socks', tag: 'socks', server: '127.0.0.1', server_port: 1080, version: '5', username: 'u', password: 'socks-secret' },
    { type: 'http', tag: 'https-proxy', server: 'proxy.example.com', server_port: 8443, tls: { enabled: true } },
    {
      type: 'vless',
      tag: 'plain-http',
      server: 'h.example.com',
      server_port: 80,
      uuid: UUID_2,
      transport: { type: 'http', host: ['www.bing.com'], path: '/' },
    },
    {
      type: 'vless',
      tag: 'chained',
      server: 'exit.example.com',
      server_port: 443,
      uuid: UUID_2,
      detour: 'trojan-grpc',
      tls: { enabled: true },
      transport: { type: 'httpupgrade', path: '/up', host: 'exit.example.com' },
    },
    { type: 'vless', tag: 'via-group', server: 'g.example.com', server_port: 443, uuid: UUID_2, detour: 'auto' },
    { type: 'ssh', tag: 'ssh', server: 'n.example.com', server_port: 22, user: 'x', password: 'y' },
    { type: 'direct', tag: 'direct' },
    { type: 'block', tag: 'block' },
    { type: 'dns', tag: 'dns-out' },
  ],
  endpoints: [
    {
      type: 'wireguard',
      tag: 'wg-endpoint',
      address: ['10.0.0.2/32'],
      private_key: WG_PRIVATE,
      mtu: 1420,
      peers: [{ address: 'wg.example.com', port: 51820, public_key: WG_PUBLIC, allowed_ips: ['0.0.0.0/0'], reserved: [0, 0, 0] }],
    },
  ],
};

describe('sing-box JSON configs', () => {
  const result = parseSubscription(JSON.stringify(CONFIG));

  it('takes every server outbound and endpoint, skipping selector / urltest / direct / block / dns', () => {
    expect(result.format).toBe('sing-box-json');
    expect(result.servers.map((s) => s.name)).toEqual([
      '🇩🇪 Reality',
      'vmess-ws',
      'trojan-grpc',
      'ss-2022',
      'hy2',
      'tuic',
      'wg-legacy',
      'socks',
      'https-proxy',
      'plain-http',
      'chained',
      'wg-endpoint',
    ]);
  });

  it('maps tls, utls, reality and every transport', () => {
    const byName = new Map(result.servers.map((s) => [s.name, s]));
    expect(byName.get('🇩🇪 Reality')).toMatchObject({
      protocol: 'vless',
      flow: 'xtls-rprx-vision',
      transport: { network: 'tcp' },
      security: { type: 'reality', sni: 'www.speedtest.net', fingerprint: 'chrome', publicKey: PBK, shortId: '6ba851' },
    });
    expect(byName.get('vmess-ws')).toMatchObject({ transport: { network: 'ws', path: '/vm', host: 'cdn.example.com' }, security: { type: 'tls', allowInsecure: true, alpn: ['http/1.1'] } });
    expect(byName.get('trojan-grpc')).toMatchObject({ password: 'tr-secret', transport: { network: 'grpc', serviceName: 'tr' } });
    expect(byName.get('ss-2022')).toMatchObject({ method: '2022-blake3-aes-256-gcm', password: KEY_32 });
    expect(byName.get('hy2')).toMatchObject({ protocol: 'hysteria2', upMbps: 50, downMbps: 200, obfs: { type: 'salamander', password: 'obfs-secret' }, security: { type: 'tls', alpn: ['h3'] } });
    expect(byName.get('tuic')).toMatchObject({ congestionControl: 'bbr', udpRelayMode: 'quic', password: 'tuic-secret' });
    expect(byName.get('wg-legacy')).toMatchObject({ address: '162.159.192.1', port: 2408, localAddresses: ['172.16.0.2/32', '2606:4700:110:8f81::2/128'], reserved: [1, 2, 3], mtu: 1280 });
    expect(byName.get('wg-endpoint')).toMatchObject({ address: 'wg.example.com', port: 51820, publicKey: WG_PUBLIC, localAddresses: ['10.0.0.2/32'], reserved: [0, 0, 0], mtu: 1420 });
    expect(byName.get('socks')).toMatchObject({ protocol: 'socks', username: 'u', password: 'socks-secret' });
    expect(byName.get('https-proxy')).toMatchObject({ protocol: 'http', security: { type: 'tls' } });
    // sing-box's "http" transport is plain HTTP/1.1 without TLS: the tcp header obfuscation.
    expect(byName.get('plain-http')).toMatchObject({ transport: { network: 'tcp', headerType: 'http', host: 'www.bing.com', path: '/' } });
    expect(byName.get('chained')).toMatchObject({ viaName: 'trojan-grpc', transport: { network: 'httpupgrade', path: '/up' } });
  });

  it('rejects a detour through a group and an unsupported type, by item position', () => {
    expect(result.rejected.map((r) => [r.line, r.reason])).toEqual([
      [14, 'dials through "auto", a group of servers; chains through groups are not supported'],
      [15, 'sing-box: outbound type "ssh" is not supported'],
    ]);
    expect(result.rejected.map((r) => r.excerpt).join(' ')).not.toContain(UUID_2);
  });

  it('experimental.monitoring.ipv6_declared (tag → bool) declares IPv6 support per server; unknown tags and non-bools are reported', () => {
    const declared = parseSubscription(
      JSON.stringify({
        outbounds: [
          { type: 'trojan', tag: 'v6-ok', server: 'a.example.com', server_port: 443, password: 'pw', tls: { enabled: true } },
          { type: 'trojan', tag: 'v4-only', server: 'b.example.com', server_port: 443, password: 'pw', tls: { enabled: true } },
          { type: 'trojan', tag: 'silent', server: 'c.example.com', server_port: 443, password: 'pw', tls: { enabled: true } },
          { type: 'trojan', tag: 'odd', server: 'd.example.com', server_port: 443, password: 'pw', tls: { enabled: true } },
        ],
        experimental: { monitoring: { ipv6_declared: { 'v6-ok': true, 'v4-only': false, odd: 'perhaps', gone: true } } },
      }),
    );
    expect(declared.servers.map((s) => [s.name, s.ipv6])).toEqual([
      ['v6-ok', true],
      ['v4-only', false],
      ['silent', undefined],
      ['odd', undefined],
    ]);
    expect(declared.notes.map((n) => [n.line, n.note])).toEqual([
      [1, 'experimental.monitoring.ipv6_declared names "gone", which is no server of this config: ignored'],
      [4, 'ipv6="perhaps" is neither 1 nor 0: IPv6 support not declared'],
    ]);
  });

  it('WebSocket early data given as max_early_data becomes ?ed= in the path for Xray\'s header, and is left out with a note when sing-box would put it in the path', () => {
    const ws = (tag: string, transport: Record<string, unknown>) => ({ type: 'vless', tag, server: 'v.example.com', server_port: 443, uuid: UUID_1, tls: { enabled: true }, transport: { type: 'ws', path: '/ws', ...transport } });
    const parsed = parseSubscription(JSON.stringify({ outbounds: [ws('xray-style', { max_early_data: 2048, early_data_header_name: 'Sec-WebSocket-Protocol' }), ws('path-style', { max_early_data: 2048 })] }));
    expect(parsed.servers.map((server) => [server.name, server.transport.path])).toEqual([
      ['xray-style', '/ws?ed=2048'],
      ['path-style', '/ws'],
    ]);
    expect(parsed.notes.map((n) => n.note)).toEqual(['vless: WebSocket early data in the path is not what Xray sends (Sec-WebSocket-Protocol): left out, the connection opens without it']);
  });

  it('a bare array of outbounds is read as one config', () => {
    const bare = parseSubscription(JSON.stringify([{ type: 'trojan', tag: 't', server: 't.example.com', server_port: 443, password: 'pw', tls: { enabled: true } }]));
    expect(bare.format).toBe('sing-box-json');
    expect(bare.servers[0]).toMatchObject({ name: 't', security: { type: 'tls' } });
  });

  it('keeps Hysteria2 server_ports as the hopping range (sing-box writes low:high)', () => {
    const config = { outbounds: [{ type: 'hysteria2', tag: 'hop', server: 'h.example.com', server_port: 443, server_ports: ['20000:30000', '443'], password: 'pw', tls: { enabled: true } }] };
    expect(parseSubscription(JSON.stringify(config)).servers[0]).toMatchObject({ port: 443, portHopping: '20000-30000,443' });
  });

  it('imports a Hysteria2 outbound that gives only server_ports, as sing-box allows (its own docs example), dialling the first hop', () => {
    const config = {
      outbounds: [
        { type: 'hysteria2', tag: 'hy2', server: '192.0.2.63', server_ports: ['20000:30000'], up_mbps: 50, down_mbps: 100, obfs: { type: 'salamander', password: 'cry_me_a_r1ver' }, password: 'goofy_ahh_password', tls: { enabled: true, server_name: 'h.example.com', alpn: ['h3'] } },
      ],
    };
    const result = parseSubscription(JSON.stringify(config));
    expect(result.rejected).toEqual([]);
    expect(result.servers[0]).toMatchObject({ name: 'hy2', port: 20000, portHopping: '20000-30000', obfs: { type: 'salamander' }, security: { sni: 'h.example.com' } });
  });

  it('reads server_ports given as one string, as sing-box accepts for any list option', () => {
    const config = { outbounds: [{ type: 'hysteria2', tag: 'one', server: '192.0.2.64', server_ports: '20000:30000', password: 'pw', tls: { enabled: true } }] };
    expect(parseSubscription(JSON.stringify(config)).servers[0]).toMatchObject({ name: 'one', port: 20000, portHopping: '20000-30000' });
  });
});
