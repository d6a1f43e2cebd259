import { describe, expect, it } from 'vitest';
import type { Network, Server } from '../../shared/domain/server';
import { UnsupportedServerError } from './errors';
import { profileFromTable } from './testing/profile';
import { outboundFor } from './outbound';
import { sampleServer } from './samples';
import { splitEarlyData } from './stream';

const v2ray434 = profileFromTable('v2ray', '4.34.0');
const v2ray5 = profileFromTable('v2ray', '5.16.1');
const xray1816 = profileFromTable('xray', '1.8.16');
const xray25 = profileFromTable('xray', '25.3.6');
const xray26 = profileFromTable('xray', '26.1.18');

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const out = (server: Server, core = v2ray434, tag = 'proxy', viaTag?: string): Json => outboundFor(server, core, tag, viaTag ? { viaTag } : {}) as Json;

describe('protocol settings', () => {
  it.each<[string, Server, Json]>([
    [
      'vmess',
      sampleServer('vmess', 'tcp', { alterId: 4, cipher: 'AES-128-GCM' } as Partial<Server>),
      { protocol: 'vmess', settings: { vnext: [{ address: '192.0.2.1', port: 443, users: [{ id: '0b3f5b5e-7a52-4f4e-9b0c-2f1c4c8e9a11', alterId: 4, security: 'aes-128-gcm' }] }] } },
    ],
    [
      'vless',
      sampleServer('vless'),
      { protocol: 'vless', settings: { vnext: [{ address: '192.0.2.1', port: 443, users: [{ id: '0b3f5b5e-7a52-4f4e-9b0c-2f1c4c8e9a11', encryption: 'none' }] }] } },
    ],
    ['trojan', sampleServer('trojan'), { protocol: 'trojan', settings: { servers: [{ address: '192.0.2.1', port: 443, password: 'sample-password' }] } }],
    [
      'shadowsocks',
      sampleServer('shadowsocks', 'tcp', { method: 'CHACHA20-IETF-POLY1305' } as Partial<Server>),
      { protocol: 'shadowsocks', settings: { servers: [{ address: '192.0.2.1', port: 443, method: 'chacha20-ietf-poly1305', password: 'sample-password' }] } },
    ],
    ['socks without auth', sampleServer('socks'), { protocol: 'socks', settings: { servers: [{ address: '192.0.2.1', port: 443 }] } }],
    [
      'socks with auth',
      sampleServer('socks', 'tcp', { username: 'u', password: 'p' } as Partial<Server>),
      { protocol: 'socks', settings: { servers: [{ address: '192.0.2.1', port: 443, users: [{ user: 'u', pass: 'p' }] }] } },
    ],
    [
      'http with auth',
      sampleServer('http', 'tcp', { username: 'u', password: 'p' } as Partial<Server>),
      { protocol: 'http', settings: { servers: [{ address: '192.0.2.1', port: 443, users: [{ user: 'u', pass: 'p' }] }] } },
    ],
  ])('%s', (_label, server, expected) => {
    expect(out(server)).toMatchObject({ tag: 'proxy', ...expected, streamSettings: { network: 'tcp', security: 'none' } });
  });

  it('writes an IPv6 address bare, with or without brackets in the source', () => {
    expect(out(sampleServer('trojan', 'tcp', { address: '2001:db8::1' })).settings.servers[0].address).toBe('2001:db8::1');
    expect(out(sampleServer('trojan', 'tcp', { address: '[2001:db8::1]' })).settings.servers[0].address).toBe('2001:db8::1');
  });

  it('wireguard (Xray): keys, local addresses, bracketed IPv6 endpoint, reserved, mtu, the userspace stack; no stream settings', () => {
    const wg = sampleServer('wireguard', 'tcp', { address: '2001:db8::7', port: 51820, reserved: [1, 2, 3], mtu: 1280, preSharedKey: 'psk' } as Partial<Server>);
    expect(out(wg, xray25)).toEqual({
      tag: 'proxy',
      protocol: 'wireguard',
      settings: {
        secretKey: 'yAnz5TF+lXXJte14tji3zlMNq+hd2rYUIgJBgB3fBmk=',
        address: ['10.7.0.2/32'],
        peers: [{ publicKey: 'xTIBA5rboUvnH4htodjb6e697QjLERt1NAB4mZqp8Dg=', endpoint: '[2001:db8::7]:51820', preSharedKey: 'psk' }],
        reserved: [1, 2, 3],
        mtu: 1280,
        noKernelTun: true,
      },
    });
  });

  it('hysteria2 (Xray 26): `hysteria` proxy over the `hysteria` transport with TLS and auth', () => {
    const hy2 = sampleServer('hysteria2', 'tcp', { upMbps: 20, downMbps: 100 } as Partial<Server>);
    expect(out(hy2, xray26)).toEqual({
      tag: 'proxy',
      protocol: 'hysteria',
      settings: { version: 2, address: '192.0.2.1', port: 443 },
      streamSettings: {
        network: 'hysteria',
        security: 'tls',
        tlsSettings: { serverName: 'example.com', alpn: ['h3'] },
        hysteriaSettings: { version: 2, auth: 'sample-password', up: '20 mbps', down: '100 mbps' },
      },
    });
  });

  it('hysteria2 salamander obfuscation is written as a finalmask UDP mask', () => {
    const hy2 = sampleServer('hysteria2', 'tcp', { obfs: { type: 'salamander', password: 'gawrgura' } } as Partial<Server>);
    expect(out(hy2, xray26).streamSettings.finalmask).toEqual({ udp: [{ type: 'salamander', settings: { password: 'gawrgura' } }] });
    expect(out(sampleServer('hysteria2'), xray26).streamSettings.finalmask).toBeUndefined();
  });

  it('hysteria2 port hopping is written as the transport\'s udphop range', () => {
    const hy2 = sampleServer('hysteria2', 'tcp', { portHopping: '443,20000-30000' } as Partial<Server>);
    expect(out(hy2, xray26).streamSettings.hysteriaSettings.udphop).toEqual({ port: '443,20000-30000' });
    expect(out(sampleServer('hysteria2'), xray26).streamSettings.hysteriaSettings.udphop).toBeUndefined();
  });

  it('hysteria2 bandwidth and hopping go to finalmask.quicParams for an Xray that reads them there (26.3.27 ignores them in hysteriaSettings)', () => {
    const xray2603 = profileFromTable('xray', '26.3.27');
    const hy2 = sampleServer('hysteria2', 'tcp', { upMbps: 20, downMbps: 100, portHopping: '443,20000-30000', obfs: { type: 'salamander', password: 'gawrgura' } } as Partial<Server>);
    const stream = out(hy2, xray2603).streamSettings;
    expect(stream.hysteriaSettings).toEqual({ version: 2, auth: 'sample-password' });
    expect(stream.finalmask).toEqual({
      udp: [{ type: 'salamander', settings: { password: 'gawrgura' } }],
      quicParams: { brutalUp: '20 mbps', brutalDown: '100 mbps', udpHop: { ports: '443,20000-30000', interval: 30 } },
    });
    expect(out(sampleServer('hysteria2'), xray2603).streamSettings.finalmask).toBeUndefined();
  });

  it('vless vision flow is written for Xray', () => {
    const vision = sampleServer('vless', 'tcp', { flow: 'xtls-rprx-vision', security: { type: 'tls', sni: 'example.com' } } as Partial<Server>);
    expect(out(vision, xray25).settings.vnext[0].users[0]).toEqual({ id: '0b3f5b5e-7a52-4f4e-9b0c-2f1c4c8e9a11', encryption: 'none', flow: 'xtls-rprx-vision' });
  });

  it('VLESS Encryption is written as the link gave it, for an Xray that has it', () => {
    const encryption = 'mlkem768x25519plus.native.0rtt.100-111-1111.CQAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA';
    const encrypted = sampleServer('vless', 'tcp', { encryption, flow: 'xtls-rprx-vision' } as Partial<Server>);
    expect(out(encrypted, profileFromTable('xray', '25.10.15')).settings.vnext[0].users[0]).toEqual({ id: '0b3f5b5e-7a52-4f4e-9b0c-2f1c4c8e9a11', encryption, flow: 'xtls-rprx-vision' });
    expect(() => out(encrypted, xray25)).toThrow('VLESS Encryption (mlkem768x25519plus) needs Xray ≥ 25.9.5');
  });

  it('throws UnsupportedServerError with the server name and the reason, without credentials', () => {
    const wg = { ...sampleServer('wireguard'), name: 'WG Frankfurt' } as Server;
    expect(() => out(wg, v2ray434)).toThrow(UnsupportedServerError);
    expect(() => out(wg, v2ray434)).toThrow('WG Frankfurt: not supported by v2ray 4.34.0: WireGuard needs Xray');
  });
});

describe('transports', () => {
  const transportCases: [string, Network, Partial<Server['transport']>, typeof v2ray434, Json][] = [
    ['tcp plain', 'tcp', {}, v2ray434, { network: 'tcp' }],
    [
      'tcp http header',
      'tcp',
      { headerType: 'http', host: 'a.example,b.example', path: '/x' },
      v2ray434,
      { network: 'tcp', tcpSettings: { header: { type: 'http', request: { path: ['/x'], headers: { Host: ['a.example', 'b.example'] } } } } },
    ],
    ['ws v2ray 4: path + Host header, ?ed dropped', 'ws', { path: '/ws?ed=2048', host: 'cdn.example' }, v2ray434, { network: 'ws', wsSettings: { path: '/ws', headers: { Host: 'cdn.example' } } }],
    [
      'ws v2ray 5: early data as fields',
      'ws',
      { path: '/ws?ed=2048', host: 'cdn.example' },
      v2ray5,
      { network: 'ws', wsSettings: { path: '/ws', headers: { Host: 'cdn.example' }, maxEarlyData: 2048, earlyDataHeaderName: 'Sec-WebSocket-Protocol' } },
    ],
    ['ws Xray 25: host field, ?ed kept in path', 'ws', { path: '/ws?ed=2048', host: 'cdn.example' }, xray25, { network: 'ws', wsSettings: { path: '/ws?ed=2048', host: 'cdn.example' } }],
    ['grpc v2ray 5: no multiMode', 'grpc', { serviceName: 'svc', grpcMultiMode: true }, v2ray5, { network: 'grpc', grpcSettings: { serviceName: 'svc' } }],
    ['grpc Xray: multiMode', 'grpc', { serviceName: 'svc', grpcMultiMode: true }, xray25, { network: 'grpc', grpcSettings: { serviceName: 'svc', multiMode: true } }],
    ['grpc Xray: the :authority a CDN routes by', 'grpc', { serviceName: 'svc', host: 'auth.example' }, xray25, { network: 'grpc', grpcSettings: { serviceName: 'svc', multiMode: false, authority: 'auth.example' } }],
    ['h2 → http', 'h2', { host: 'a.example, b.example', path: '/h2' }, v2ray434, { network: 'http', httpSettings: { host: ['a.example', 'b.example'], path: '/h2' } }],
    ['httpupgrade', 'httpupgrade', { host: 'cdn.example', path: '/up' }, xray25, { network: 'httpupgrade', httpupgradeSettings: { path: '/up', host: 'cdn.example' } }],
    ['xhttp', 'xhttp', { host: 'cdn.example', path: '/x', mode: 'packet-up' }, xray25, { network: 'xhttp', xhttpSettings: { path: '/x', host: 'cdn.example', mode: 'packet-up' } }],
    [
      'xhttp with extra settings (a download leg elsewhere)',
      'xhttp',
      { path: '/x', mode: 'packet-up', xhttpExtra: { xPaddingBytes: '100-1000', downloadSettings: { address: 'dl.example', port: 443 } } },
      xray25,
      { network: 'xhttp', xhttpSettings: { path: '/x', mode: 'packet-up', extra: { xPaddingBytes: '100-1000', downloadSettings: { address: 'dl.example', port: 443 } } } },
    ],
    ['xhttp as splithttp on Xray 1.8.16', 'xhttp', { host: 'cdn.example', path: '/x' }, xray1816, { network: 'splithttp', splithttpSettings: { path: '/x', host: 'cdn.example' } }],
    ['kcp', 'kcp', { headerType: 'wechat-video', seed: 'seed' }, v2ray434, { network: 'kcp', kcpSettings: { header: { type: 'wechat-video' }, seed: 'seed' } }],
    ['kcp on Xray 25: the old fields', 'kcp', { headerType: 'srtp' }, xray25, { network: 'kcp', kcpSettings: { header: { type: 'srtp' } } }],
    // Xray 26 refuses the old fields: the header mask first, then the seed's obfuscation (or mKCP's original one).
    [
      'kcp on Xray 26: header and seed as FinalMask masks',
      'kcp',
      { headerType: 'wechat-video', seed: 'seed' },
      xray26,
      { network: 'kcp', kcpSettings: {}, finalmask: { udp: [{ type: 'header-wechat' }, { type: 'mkcp-aes128gcm', settings: { password: 'seed' } }] } },
    ],
    ['kcp on Xray 26 without header or seed', 'kcp', {}, xray26, { network: 'kcp', kcpSettings: {}, finalmask: { udp: [{ type: 'mkcp-original' }] } }],
    ['kcp on Xray 26 with header none', 'kcp', { headerType: 'none', seed: 's' }, xray26, { network: 'kcp', finalmask: { udp: [{ type: 'mkcp-aes128gcm', settings: { password: 's' } }] } }],
    [
      'quic',
      'quic',
      { quicSecurity: 'aes-128-gcm', quicKey: 'k', headerType: 'srtp' },
      v2ray434,
      { network: 'quic', quicSettings: { security: 'aes-128-gcm', key: 'k', header: { type: 'srtp' } } },
    ],
  ];
  it.each(transportCases)('%s', (_label, network, transport, core, expected) => {
    const server = sampleServer('vmess', network, { transport: { network, ...transport } });
    expect(out(server, core).streamSettings).toMatchObject(expected);
  });

  it('every protocol × transport × security the table allows is written with its settings key', () => {
    const settingsKey: Record<string, string | null> = {
      tcp: null, ws: 'wsSettings', grpc: 'grpcSettings', http: 'httpSettings', httpupgrade: 'httpupgradeSettings',
      xhttp: 'xhttpSettings', kcp: 'kcpSettings', quic: 'quicSettings',
    };
    let written = 0;
    for (const core of [v2ray434, v2ray5, profileFromTable('xray', '1.8.24'), xray25]) {
      for (const protocol of ['vmess', 'vless', 'trojan', 'shadowsocks', 'socks', 'http'] as const) {
        for (const network of core.capabilities.networks) {
          for (const securityType of core.capabilities.securities) {
            if (securityType === 'reality' && !['tcp', 'grpc', 'xhttp', 'h2'].includes(network)) continue;
            const security = securityType === 'reality' ? { type: securityType, sni: 'example.com', publicKey: 'pk', shortId: 'ab' } : { type: securityType, sni: 'example.com' };
            const stream = out(sampleServer(protocol, network, { security }), core).streamSettings;
            const key = settingsKey[stream.network];
            if (key) expect(stream, `${core.family} ${protocol} ${network}`).toHaveProperty(key);
            if (securityType === 'tls') expect(stream.tlsSettings.serverName).toBe('example.com');
            if (securityType === 'reality') expect(stream.realitySettings).toMatchObject({ publicKey: 'pk', shortId: 'ab', fingerprint: 'chrome' });
            written++;
          }
        }
      }
    }
    expect(written).toBeGreaterThan(200);
  });

  it('a v2ray-plugin (websocket, tls) shadowsocks server becomes shadowsocks over WebSocket + TLS', () => {
    const ss = sampleServer('shadowsocks', 'tcp', { plugin: { name: 'v2ray-plugin', options: 'tls;host=cdn.example;path=/ss' } } as Partial<Server>);
    expect(out(ss).streamSettings).toEqual({ network: 'ws', security: 'tls', wsSettings: { path: '/ss', headers: { Host: 'cdn.example' } }, tlsSettings: { serverName: 'cdn.example' } });
  });

  it('a v2ray-plugin path written with SIP003 escapes (as v2rayN and Cloudflare-worker panels share it) reaches the core unescaped', () => {
    const options = 'mode=websocket;host=ss.example.com;path=/?enc\\=2022-blake3-aes-256-gcm;mux=0';
    const ss = sampleServer('shadowsocks', 'tcp', { plugin: { name: 'v2ray-plugin', options } } as Partial<Server>);
    expect(out(ss).streamSettings).toMatchObject({ network: 'ws', security: 'none', wsSettings: { path: '/?enc=2022-blake3-aes-256-gcm', headers: { Host: 'ss.example.com' } } });
  });
});

describe('security', () => {
  const tlsServer = (extra: Partial<Server['security']>, address = 'server.example'): Server =>
    sampleServer('trojan', 'tcp', { address, security: { type: 'tls', ...extra } });

  it('TLS: sni, alpn, allowInsecure', () => {
    expect(out(tlsServer({ sni: 'sni.example', alpn: ['h2', 'http/1.1'], allowInsecure: true })).streamSettings.tlsSettings).toEqual({
      serverName: 'sni.example',
      alpn: ['h2', 'http/1.1'],
      allowInsecure: true,
    });
  });

  it('allowInsecure is written only for a core that still has it: Xray 26.2.6 and later verify the certificate (they refuse a config with it)', () => {
    const insecure = tlsServer({ sni: 'sni.example', allowInsecure: true });
    expect(out(insecure, xray25).streamSettings.tlsSettings.allowInsecure).toBe(true);
    expect(out(insecure, xray26).streamSettings.tlsSettings.allowInsecure).toBe(true);
    for (const version of ['26.2.6', '26.3.27']) {
      const current = profileFromTable('xray', version);
      expect(out(insecure, current).streamSettings.tlsSettings).toEqual({ serverName: 'sni.example' });
      const hy2 = sampleServer('hysteria2', 'tcp', { security: { type: 'tls', allowInsecure: true } } as Partial<Server>);
      expect(out(hy2, current).streamSettings.tlsSettings).not.toHaveProperty('allowInsecure');
    }
    expect(out(sampleServer('hysteria2', 'tcp', { security: { type: 'tls', allowInsecure: true } } as Partial<Server>), xray26).streamSettings.tlsSettings.allowInsecure).toBe(true);
  });

  it('TLS name falls back to the Host header, then to a domain address, never to an IP', () => {
    const viaHost = sampleServer('vmess', 'ws', { address: '192.0.2.9', transport: { network: 'ws', host: 'cdn.example' }, security: { type: 'tls' } });
    expect(out(viaHost).streamSettings.tlsSettings.serverName).toBe('cdn.example');
    expect(out(tlsServer({})).streamSettings.tlsSettings.serverName).toBe('server.example');
    expect(out(tlsServer({}, '192.0.2.1')).streamSettings.tlsSettings).toEqual({});
  });

  it('the uTLS fingerprint is written only for Xray', () => {
    expect(out(tlsServer({ fingerprint: 'chrome' }), v2ray434).streamSettings.tlsSettings).not.toHaveProperty('fingerprint');
    expect(out(tlsServer({ fingerprint: 'chrome' }), v2ray5).streamSettings.tlsSettings).not.toHaveProperty('fingerprint');
    expect(out(tlsServer({ fingerprint: 'firefox' }), xray25).streamSettings.tlsSettings.fingerprint).toBe('firefox');
  });

  it('REALITY (Xray): serverName, fingerprint (chrome when absent), publicKey, shortId, spiderX', () => {
    const server = sampleServer('vless', 'tcp', { security: { type: 'reality', sni: 'www.example.com', publicKey: 'pk', shortId: '6ba8', spiderX: '/s' } });
    expect(out(server, xray25).streamSettings).toEqual({
      network: 'tcp',
      security: 'reality',
      realitySettings: { serverName: 'www.example.com', fingerprint: 'chrome', publicKey: 'pk', shortId: '6ba8', spiderX: '/s' },
    });
  });

  it('REALITY with an ML-DSA-65 key: Xray checks the server by it too (mldsa65Verify)', () => {
    const server = sampleServer('vless', 'tcp', { security: { type: 'reality', sni: 'www.example.com', publicKey: 'pk', shortId: '6ba8', mldsa65Verify: 'mldsa' } });
    expect(out(server, xray25).streamSettings).toMatchObject({ realitySettings: { publicKey: 'pk', mldsa65Verify: 'mldsa' } });
  });
});

describe('chaining', () => {
  it('Xray dials through the upstream with sockopt.dialerProxy, keeping its own transport', () => {
    const o = out(sampleServer('vless', 'ws', { security: { type: 'tls', sni: 'x.example' } }), xray25, 'proxy', 'proxy-via');
    expect(o.streamSettings).toMatchObject({ network: 'ws', security: 'tls', sockopt: { dialerProxy: 'proxy-via' } });
    expect(o).not.toHaveProperty('proxySettings');
  });

  it('v2ray 5 uses proxySettings with transportLayer', () => {
    const o = out(sampleServer('vmess', 'ws'), v2ray5, 'proxy', 'proxy-via');
    expect(o.proxySettings).toEqual({ tag: 'proxy-via', transportLayer: true });
    expect(o.streamSettings.network).toBe('ws');
  });

  it('v2ray 4.34 uses proxySettings.tag (its streamSettings would be ignored, so none are written)', () => {
    const o = out(sampleServer('vmess'), v2ray434, 'proxy', 'proxy-via');
    expect(o.proxySettings).toEqual({ tag: 'proxy-via' });
    expect(o).not.toHaveProperty('streamSettings');
  });

  it('wireguard chained on Xray still gets the dialerProxy', () => {
    expect(out(sampleServer('wireguard'), xray25, 'proxy', 'up').streamSettings).toEqual({ sockopt: { dialerProxy: 'up' } });
  });
});

describe('splitEarlyData', () => {
  it.each([
    ['/ws', '/ws', null],
    ['/ws?ed=2048', '/ws', 2048],
    ['/ws?ed=2048&x=1', '/ws?x=1', 2048],
    ['/ws?x=1', '/ws?x=1', null],
    ['/ws?ed=abc', '/ws', null],
  ])('%s', (raw, path, earlyData) => {
    expect(splitEarlyData(raw)).toEqual({ path, earlyData });
  });
});

describe('HTTPS proxies', () => {
  it('offer only HTTP/1.1 by ALPN (an h2 answer would switch v2ray to HTTP/2 CONNECT) unless the entry sets ALPN', () => {
    const https = sampleServer('http', 'tcp', { security: { type: 'tls', sni: 'proxy.example' } });
    expect(out(https).streamSettings.tlsSettings).toEqual({ serverName: 'proxy.example', alpn: ['http/1.1'] });
    const h2 = sampleServer('http', 'tcp', { security: { type: 'tls', sni: 'proxy.example', alpn: ['h2'] } });
    expect(out(h2).streamSettings.tlsSettings.alpn).toEqual(['h2']);
  });
});
