import { describe, expect, it } from 'vitest';
import { parseSubscription } from './index';

const UUID_1 = 'a7e505a9-d63f-48ac-92f3-85ebcd7d7018';
const UUID_2 = 'ca578b3b-38d5-4ec0-b9de-9af751aa5146';
const PBK = '58n0Yz_zrK8EhIvLN8MRX-_f0hjqGJRoI3vvVoVhemA';
const WG_PRIVATE = 'AN0uPeVcrocvIXzzOfHKS+GOWYIK4+ryYpzqA+ExEWs=';
const WG_PUBLIC = 'bmXOC+F1FxEMF9dyiK2H5/1SUtzH0JuVo51h2wPfgyo=';

/** A full client config as Xray users and panels write it: several proxies, plus the usual helpers. */
const FULL_CONFIG = {
  log: { loglevel: 'warning' },
  inbounds: [{ port: 10808, protocol: 'socks', settings: { udp: true } }],
  outbounds: [
    {
      tag: 'reality-de',
      protocol: 'vless',
      settings: { vnext: [{ address: '91.107.130.12', port: 443, users: [{ id: UUID_1, encryption: 'none', flow: 'xtls-rprx-vision' }] }] },
      streamSettings: {
        network: 'tcp',
        security: 'reality',
        realitySettings: { serverName: 'www.speedtest.net', fingerprint: 'chrome', publicKey: PBK, shortId: '6ba85179e30d4fc2', spiderX: '/' },
      },
    },
    {
      tag: 'vmess-ws',
      protocol: 'vmess',
      settings: { vnext: [{ address: 'cdn.example.com', port: 443, users: [{ id: UUID_2, alterId: 0, security: 'auto' }] }] },
      streamSettings: {
        network: 'ws',
        security: 'tls',
        tlsSettings: { serverName: 'cdn.example.com', alpn: ['http/1.1'], fingerprint: 'firefox', allowInsecure: false },
        wsSettings: { path: '/vm?ed=2048', headers: { Host: 'cdn.example.com' } },
        sockopt: { dialerProxy: 'fragment' },
      },
    },
    {
      tag: 'trojan-grpc',
      protocol: 'trojan',
      settings: { servers: [{ address: 'tr.example.net', port: 2096, password: 'tr-secret' }] },
      streamSettings: { network: 'grpc', security: 'tls', tlsSettings: { serverName: 'tr.example.net' }, grpcSettings: { serviceName: 'tr', multiMode: true } },
    },
    { tag: 'ss', protocol: 'shadowsocks', settings: { servers: [{ address: '198.51.100.4', port: 8388, method: 'chacha20-ietf-poly1305', password: 'ss-secret' }] } },
    { tag: 'socks-up', protocol: 'socks', settings: { servers: [{ address: '127.0.0.1', port: 1080, users: [{ user: 'u', pass: 'socks-secret' }] }] } },
    { tag: 'http-up', protocol: 'http', settings: { servers: [{ address: 'proxy.example.com', port: 3128 }] } },
    {
      tag: 'warp',
      protocol: 'wireguard',
      settings: { secretKey: WG_PRIVATE, address: ['172.16.0.2/32', '2606:4700:110:8f81::2/128'], peers: [{ publicKey: WG_PUBLIC, endpoint: 'engage.cloudflareclient.com:2408' }], reserved: [1, 2, 3], mtu: 1280 },
    },
    {
      tag: 'chained',
      protocol: 'vless',
      settings: { vnext: [{ address: 'exit.example.com', port: 443, users: [{ id: UUID_1, encryption: 'none' }] }] },
      streamSettings: { network: 'xhttp', security: 'tls', xhttpSettings: { path: '/x', host: 'exit.example.com', mode: 'stream-one', xPaddingBytes: '100-1000', extra: { noGRPCHeader: true } } },
      proxySettings: { tag: 'reality-de' },
    },
    {
      tag: 'upgrade',
      protocol: 'vless',
      settings: { vnext: [{ address: 'up.example.com', port: 80, users: [{ id: UUID_2 }] }] },
      streamSettings: { network: 'httpupgrade', httpupgradeSettings: { path: '/up', host: 'up.example.com' } },
    },
    {
      tag: 'tcp-http',
      protocol: 'vmess',
      settings: { vnext: [{ address: 'h.example.com', port: 80, users: [{ id: UUID_2 }] }] },
      streamSettings: { network: 'raw', rawSettings: { header: { type: 'http', request: { path: ['/'], headers: { Host: ['www.bing.com'] } } } } },
    },
    { tag: 'fragment', protocol: 'freedom', settings: { fragment: { packets: 'tlshello', length: '100-200', interval: '10-20' } } },
    { tag: 'direct', protocol: 'freedom' },
    { tag: 'block', protocol: 'blackhole' },
    { tag: 'dns-out', protocol: 'dns' },
  ],
};

describe('Xray JSON configs', () => {
  it('takes every proxy outbound with its stream settings and skips freedom / blackhole / dns', () => {
    const result = parseSubscription(JSON.stringify(FULL_CONFIG));
    expect(result.format).toBe('xray-json');
    expect(result.rejected).toEqual([]);
    expect(result.servers.map((s) => s.name)).toEqual(['reality-de', 'vmess-ws', 'trojan-grpc', 'ss', 'socks-up', 'http-up', 'warp', 'chained', 'upgrade', 'tcp-http']);
    const [reality, vmess, trojan, ss, socks, http, warp, chained, upgrade, tcpHttp] = result.servers;
    expect(reality).toMatchObject({
      protocol: 'vless',
      address: '91.107.130.12',
      uuid: UUID_1,
      flow: 'xtls-rprx-vision',
      security: { type: 'reality', sni: 'www.speedtest.net', publicKey: PBK, shortId: '6ba85179e30d4fc2', spiderX: '/' },
    });
    expect(vmess).toMatchObject({ transport: { network: 'ws', path: '/vm?ed=2048', host: 'cdn.example.com' }, security: { type: 'tls', alpn: ['http/1.1'], fingerprint: 'firefox' } });
    expect(trojan).toMatchObject({ password: 'tr-secret', transport: { network: 'grpc', serviceName: 'tr', grpcMultiMode: true } });
    expect(ss).toMatchObject({ protocol: 'shadowsocks', method: 'chacha20-ietf-poly1305', password: 'ss-secret' });
    expect(socks).toMatchObject({ protocol: 'socks', username: 'u', password: 'socks-secret' });
    expect(http).toMatchObject({ protocol: 'http', port: 3128 });
    expect(warp).toMatchObject({ address: 'engage.cloudflareclient.com', port: 2408, privateKey: WG_PRIVATE, publicKey: WG_PUBLIC, reserved: [1, 2, 3], mtu: 1280 });
    expect(chained).toMatchObject({ viaName: 'reality-de', transport: { network: 'xhttp', path: '/x', mode: 'stream-one', xhttpExtra: { xPaddingBytes: '100-1000', noGRPCHeader: true } } });
    expect(upgrade).toMatchObject({ transport: { network: 'httpupgrade', path: '/up', host: 'up.example.com' } });
    expect(tcpHttp).toMatchObject({ transport: { network: 'tcp', headerType: 'http', path: '/', host: 'www.bing.com' } });
  });

  it('a dialer proxy that is a freedom outbound (fragmentation) is dropped with a note, not the server', () => {
    const result = parseSubscription(JSON.stringify(FULL_CONFIG));
    const vmess = result.servers.find((s) => s.name === 'vmess-ws');
    expect(vmess?.viaName).toBeUndefined();
    expect(result.notes).toEqual([{ line: 2, note: expect.stringMatching(/"fragment", a direct outbound.*dialed directly/), excerpt: expect.any(String) }]);
  });

  it('an array of configs (one per server) is named by remarks, item numbers are config positions', () => {
    const configs = [1, 2, 3].map((n) => ({
      remarks: n === 2 ? '🇳🇱 هلند | Нидерланды' : `Server ${n}`,
      outbounds: [
        {
          tag: 'proxy',
          protocol: n === 3 ? 'tuic' : 'vless',
          settings: { vnext: [{ address: `s${n}.example.com`, port: 443, users: [{ id: UUID_1 }] }] },
          streamSettings: { network: 'ws', security: 'tls', wsSettings: { path: '/' }, sockopt: { dialerProxy: 'fragment' } },
        },
        { tag: 'fragment', protocol: 'freedom', settings: { fragment: { packets: 'tlshello' } } },
        { tag: 'direct', protocol: 'freedom' },
      ],
    }));
    const result = parseSubscription(JSON.stringify(configs, null, 2));
    expect(result.servers.map((s) => s.name)).toEqual(['Server 1', '🇳🇱 هلند | Нидерланды']);
    expect(result.rejected).toEqual([{ line: 3, reason: 'xray: outbound protocol "tuic" is not supported', excerpt: expect.any(String) }]);
    expect(result.rejected[0]?.excerpt).not.toContain(UUID_1);
  });

  it('several proxies in one named config are named "remarks · tag", and chains resolve inside each config', () => {
    const config = (n: number) => ({
      remarks: 'Chain',
      outbounds: [
        { tag: 'exit', protocol: 'trojan', settings: { servers: [{ address: `exit${n}.example.com`, port: 443, password: 'pw-exit' }] }, proxySettings: { tag: 'entry' } },
        { tag: 'entry', protocol: 'trojan', settings: { servers: [{ address: `entry${n}.example.com`, port: 443, password: 'pw-entry' }] } },
      ],
    });
    const result = parseSubscription(JSON.stringify([config(1), config(2)]));
    // Both configs have an "entry" named "Chain · entry": the second is renamed so each exit names its own hop.
    expect(result.servers.map((s) => [s.name, s.address, s.viaName])).toEqual([
      ['Chain · exit', 'exit1.example.com', 'Chain · entry'],
      ['Chain · entry', 'entry1.example.com', undefined],
      ['Chain · exit', 'exit2.example.com', 'Chain · entry (2)'],
      ['Chain · entry (2)', 'entry2.example.com', undefined],
    ]);
  });

  it('chains to a missing tag, through a blackhole, or in a loop are rejected with the reason', () => {
    const trojan = (tag: string, via?: string) => ({
      tag,
      protocol: 'trojan',
      settings: { servers: [{ address: `${tag}.example.com`, port: 443, password: 'pw' }] },
      ...(via ? { proxySettings: { tag: via } } : {}),
    });
    const result = parseSubscription(
      JSON.stringify({
        outbounds: [trojan('a', 'nowhere'), trojan('b', 'block'), trojan('c', 'd'), trojan('d', 'c'), trojan('e', 'a'), trojan('f'), { tag: 'block', protocol: 'blackhole' }],
      }),
    );
    expect(result.servers.map((s) => s.name)).toEqual(['f']);
    expect(result.rejected.map((r) => [r.line, r.reason])).toEqual([
      [1, 'dials through "nowhere", which is not in this config'],
      [2, 'dials through "block", which blocks all traffic'],
      [3, 'its dialing chain loops back on itself'],
      [4, 'its dialing chain loops back on itself'],
      [5, 'dials through "a", which was rejected'],
    ]);
  });

  it('accepts comments and trailing commas, as Xray does', () => {
    const text = `{
      // my config
      "outbounds": [
        /* the only proxy */
        { "protocol": "vless", "tag": "x", "settings": { "vnext": [{ "address": "x.example.com", "port": 443, "users": [{ "id": "${UUID_1}" }] }] }, },
      ],
    }`;
    const result = parseSubscription(text);
    expect(result.format).toBe('xray-json');
    expect(result.servers).toHaveLength(1);
  });

  it('reports bad outbounds by their position and keeps the others', () => {
    const result = parseSubscription(
      JSON.stringify({
        outbounds: [
          { tag: 'ok', protocol: 'trojan', settings: { servers: [{ address: 'ok.example.com', port: 443, password: 'pw' }] } },
          { tag: 'no-port', protocol: 'vless', settings: { vnext: [{ address: 'v.example.com', users: [{ id: UUID_1 }] }] } },
          { tag: 'bad-net', protocol: 'vless', settings: { vnext: [{ address: 'v.example.com', port: 1, users: [{ id: UUID_1 }] }] }, streamSettings: { network: 'smoke' } },
          { tag: 'no-protocol' },
        ],
      }),
    );
    expect(result.servers.map((s) => s.name)).toEqual(['ok']);
    expect(result.rejected.map((r) => [r.line, r.reason])).toEqual([
      [2, 'vless: missing port'],
      [3, 'vless: unknown transport "smoke"'],
      [4, 'xray: outbound without a protocol'],
    ]);
  });

  it('xhttp extra nested 5,000 levels deep costs the server nothing but that extra', () => {
    const deep = `${'{"a":'.repeat(5000)}1${'}'.repeat(5000)}`;
    const text = `{"outbounds":[{"tag":"x","protocol":"vless","settings":{"vnext":[{"address":"x.example.com","port":443,"users":[{"id":"${UUID_1}"}]}]},"streamSettings":{"network":"xhttp","xhttpSettings":{"path":"/x","extra":${deep}}}}]}`;
    const result = parseSubscription(text);
    expect(result.rejected).toEqual([]);
    expect(result.servers[0]?.transport).toMatchObject({ network: 'xhttp', path: '/x' });
    expect(result.notes.map((n) => n.note)).toEqual(['vless: xhttp extra settings: what is nested deeper than 8 levels is ignored']);
  });

  it('keeps REALITY\'s ML-DSA-65 key (mldsa65Verify)', () => {
    const key = Buffer.alloc(1952, 7).toString('base64url');
    const outbound = { protocol: 'vless', settings: { vnext: [{ address: 'r.example.com', port: 443, users: [{ id: UUID_1, encryption: 'none' }] }] }, streamSettings: { network: 'tcp', security: 'reality', realitySettings: { serverName: 'www.example.com', fingerprint: 'chrome', password: PBK, shortId: '6b', mldsa65Verify: key } } };
    expect(parseSubscription(JSON.stringify({ outbounds: [outbound] })).servers[0]?.security).toMatchObject({ type: 'reality', publicKey: PBK, mldsa65Verify: key });
  });

  it('keeps gRPC\'s :authority (grpcSettings.authority)', () => {
    const outbound = { protocol: 'vless', settings: { vnext: [{ address: 'g.example.com', port: 443, users: [{ id: UUID_1, encryption: 'none' }] }] }, streamSettings: { network: 'grpc', security: 'tls', tlsSettings: { serverName: 'g.example.com' }, grpcSettings: { serviceName: 'svc', authority: 'auth.example.com' } } };
    expect(parseSubscription(JSON.stringify({ outbounds: [outbound] })).servers[0]?.transport).toEqual({ network: 'grpc', serviceName: 'svc', host: 'auth.example.com' });
  });

  it('reads Xray\'s Hysteria2 (a `hysteria` outbound of version 2 over its `hysteria` transport), in the form before March 2026 and after', () => {
    const tls = { serverName: 'hy.example.com', alpn: ['h3'], pinnedPeerCertSha256: 'ab'.repeat(32) };
    const older = {
      tag: 'old',
      protocol: 'hysteria',
      settings: { version: 2, address: 'hy.example.com', port: 443 },
      streamSettings: { network: 'hysteria', security: 'tls', tlsSettings: tls, hysteriaSettings: { version: 2, auth: 'pw', up: '20 mbps', down: '100 mbps', udphop: { port: '20000-30000' } } },
    };
    const newer = {
      tag: 'new',
      protocol: 'hysteria',
      settings: { version: 2, address: 'hy.example.com', port: 443 },
      streamSettings: {
        network: 'hysteria',
        security: 'tls',
        tlsSettings: tls,
        hysteriaSettings: { version: 2, auth: 'pw' },
        finalmask: { udp: [{ type: 'salamander', settings: { password: 'ob' } }], quicParams: { brutalUp: '20 mbps', brutalDown: '100 mbps', udpHop: { ports: '20000-30000', interval: 30 } } },
      },
    };
    const parsed = parseSubscription(JSON.stringify({ outbounds: [older, newer, { ...older, tag: 'v1', settings: { version: 1, address: 'hy.example.com', port: 443 } }] }));
    const expected = { protocol: 'hysteria2', address: 'hy.example.com', port: 443, password: 'pw', upMbps: 20, downMbps: 100, portHopping: '20000-30000', security: { type: 'tls', sni: 'hy.example.com', alpn: ['h3'], pinnedCertSha256: ['ab'.repeat(32)] } };
    expect(parsed.servers).toEqual([expect.objectContaining({ name: 'old', ...expected }), expect.objectContaining({ name: 'new', ...expected, obfs: { type: 'salamander', password: 'ob' } })]);
    expect(parsed.servers[0]).not.toHaveProperty('obfs');
    expect(parsed.rejected.map((r) => r.reason)).toEqual(["hysteria: Xray's hysteria outbound of version 1 (only version 2, Hysteria2, is read)"]);
  });

  it('reads the REALITY key from `password`, the name Xray gives it now (panels write it alone or beside publicKey)', () => {
    const reality = (settings: Record<string, string>) =>
      JSON.stringify({
        outbounds: [
          {
            tag: 'r',
            protocol: 'vless',
            settings: { vnext: [{ address: '192.0.2.93', port: 443, users: [{ id: UUID_1, encryption: 'none', flow: 'xtls-rprx-vision' }] }] },
            streamSettings: { network: 'raw', security: 'reality', realitySettings: { serverName: 'www.example.com', fingerprint: 'chrome', shortId: '0123456789abcdef', ...settings } },
          },
        ],
      });
    const alone = parseSubscription(reality({ password: PBK }));
    expect(alone.rejected).toEqual([]);
    expect(alone.servers[0]).toMatchObject({ flow: 'xtls-rprx-vision', security: { type: 'reality', publicKey: PBK, shortId: '0123456789abcdef' } });
    expect(parseSubscription(reality({ password: PBK, publicKey: PBK })).servers[0]?.security.publicKey).toBe(PBK);
  });
});

