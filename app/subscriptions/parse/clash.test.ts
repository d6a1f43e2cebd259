import { describe, expect, it } from 'vitest';
import { parseSubscription } from './index';

const UUID_1 = 'a7e505a9-d63f-48ac-92f3-85ebcd7d7018';
const UUID_2 = 'ca578b3b-38d5-4ec0-b9de-9af751aa5146';
const PBK = '58n0Yz_zrK8EhIvLN8MRX-_f0hjqGJRoI3vvVoVhemA';
const WG_PRIVATE = 'AN0uPeVcrocvIXzzOfHKS+GOWYIK4+ryYpzqA+ExEWs=';
const WG_PUBLIC = 'bmXOC+F1FxEMF9dyiK2H5/1SUtzH0JuVo51h2wPfgyo=';

/** A Mihomo profile as panels serve it to Clash clients. */
const PROFILE = `
mixed-port: 7890
allow-lan: false
mode: rule
proxies:
  - name: "🇩🇪 آلمان | Германия"
    type: vmess
    server: de.example.com
    port: 443
    uuid: ${UUID_1}
    alterId: 0
    cipher: auto
    tls: true
    servername: cdn.example.com
    skip-cert-verify: false
    network: ws
    ws-opts:
      path: /vm?ed=2048
      headers:
        Host: cdn.example.com
  - name: reality
    type: vless
    server: 91.107.130.12
    port: 443
    uuid: ${UUID_2}
    flow: xtls-rprx-vision
    tls: true
    servername: www.speedtest.net
    client-fingerprint: chrome
    reality-opts:
      public-key: ${PBK}
      short-id: 6ba85179e30d4fc2
  - { name: trojan-grpc, type: trojan, server: tr.example.net, port: "2096", password: tr-secret, sni: tr.example.net, network: grpc, grpc-opts: { grpc-service-name: tr } }
  - name: ss-obfs
    type: ss
    server: 198.51.100.4
    port: 8388
    cipher: aes-128-gcm
    password: ss-secret
    plugin: obfs
    plugin-opts:
      mode: http
      host: www.bing.com
  - name: ss-v2ray
    type: ss
    server: 198.51.100.5
    port: 443
    cipher: chacha20-ietf-poly1305
    password: ss-secret
    plugin: v2ray-plugin
    plugin-opts:
      mode: websocket
      tls: true
      host: cdn.example.com
      path: /ss
  - name: hy2
    type: hysteria2
    server: hy.example.com
    port: 8443
    password: hy-secret
    obfs: salamander
    obfs-password: obfs-secret
    sni: hy.example.com
    skip-cert-verify: true
    up: "50 Mbps"
    down: 200
  - name: tuic
    type: tuic
    server: tuic.example.com
    port: 443
    uuid: ${UUID_1}
    password: tuic-secret
    congestion-controller: bbr
    udp-relay-mode: native
    alpn: [h3]
    sni: tuic.example.com
  - name: warp
    type: wireguard
    server: 162.159.192.1
    port: 2408
    ip: 172.16.0.2
    ipv6: 2606:4700:110:8f81::2
    private-key: ${WG_PRIVATE}
    public-key: ${WG_PUBLIC}
    reserved: [1, 2, 3]
    mtu: 1280
  - { name: socks, type: socks5, server: 127.0.0.1, port: 1080, username: u, password: socks-secret }
  - { name: http, type: http, server: proxy.example.com, port: 8443, tls: true, username: u, password: http-secret }
  - name: h2
    type: vmess
    server: h2.example.com
    port: 443
    uuid: ${UUID_2}
    alterId: 0
    cipher: auto
    tls: true
    network: h2
    h2-opts:
      host: [h2.example.com]
      path: /h2
  - name: legacy-ws
    type: vmess
    server: old.example.com
    port: 80
    uuid: ${UUID_2}
    alterId: 0
    cipher: auto
    network: ws
    ws-path: /old
    ws-headers:
      Host: old.example.com
  - name: chained
    type: trojan
    server: exit.example.com
    port: 443
    password: exit-secret
    dialer-proxy: reality
  - name: via-group
    type: trojan
    server: g.example.com
    port: 443
    password: pw
    dialer-proxy: Proxy
  - { name: snell, type: snell, server: s.example.com, port: 443, psk: snell-secret }
  - { name: bad-port, type: vless, server: b.example.com, port: 0, uuid: ${UUID_1} }
proxy-groups:
  - name: Proxy
    type: select
    proxies: [reality, hy2]
rules:
  - MATCH,Proxy
`;

describe('Clash / Mihomo YAML', () => {
  const result = parseSubscription(PROFILE);

  it('reads every supported proxy type with its options', () => {
    expect(result.format).toBe('clash-yaml');
    const byName = new Map(result.servers.map((s) => [s.name, s]));
    expect([...byName.keys()]).toEqual(['🇩🇪 آلمان | Германия', 'reality', 'trojan-grpc', 'ss-obfs', 'ss-v2ray', 'hy2', 'tuic', 'warp', 'socks', 'http', 'h2', 'legacy-ws', 'chained']);
    expect(byName.get('🇩🇪 آلمان | Германия')).toMatchObject({
      protocol: 'vmess',
      uuid: UUID_1,
      transport: { network: 'ws', path: '/vm?ed=2048', host: 'cdn.example.com' },
      security: { type: 'tls', sni: 'cdn.example.com' },
    });
    expect(byName.get('reality')).toMatchObject({ flow: 'xtls-rprx-vision', security: { type: 'reality', sni: 'www.speedtest.net', fingerprint: 'chrome', publicKey: PBK, shortId: '6ba85179e30d4fc2' } });
    expect(byName.get('trojan-grpc')).toMatchObject({ port: 2096, transport: { network: 'grpc', serviceName: 'tr' }, security: { type: 'tls', sni: 'tr.example.net' } });
    expect(byName.get('ss-obfs')).toMatchObject({ protocol: 'shadowsocks', plugin: { name: 'obfs-local', options: 'obfs=http;obfs-host=www.bing.com' } });
    expect(byName.get('ss-v2ray')).toMatchObject({ plugin: { name: 'v2ray-plugin', options: 'mode=websocket;tls;host=cdn.example.com;path=/ss' } });
    expect(byName.get('hy2')).toMatchObject({ upMbps: 50, downMbps: 200, obfs: { type: 'salamander', password: 'obfs-secret' }, security: { allowInsecure: true } });
    expect(byName.get('tuic')).toMatchObject({ congestionControl: 'bbr', udpRelayMode: 'native', security: { alpn: ['h3'] } });
    expect(byName.get('warp')).toMatchObject({ localAddresses: ['172.16.0.2/32', '2606:4700:110:8f81::2/128'], reserved: [1, 2, 3], mtu: 1280 });
    expect(byName.get('socks')).toMatchObject({ protocol: 'socks', password: 'socks-secret' });
    expect(byName.get('http')).toMatchObject({ protocol: 'http', security: { type: 'tls' } });
    expect(byName.get('h2')).toMatchObject({ transport: { network: 'h2', host: 'h2.example.com', path: '/h2' } });
    expect(byName.get('legacy-ws')).toMatchObject({ transport: { network: 'ws', path: '/old', host: 'old.example.com' }, security: { type: 'none' } });
    expect(byName.get('chained')).toMatchObject({ viaName: 'reality', security: { type: 'tls' } });
  });

  it('rejects by item position: a chain through a group, an unsupported type, a bad port', () => {
    expect(result.rejected.map((r) => [r.line, r.reason])).toEqual([
      [14, 'dials through "Proxy", a group of servers; chains through groups are not supported'],
      [15, 'clash: proxy type "snell" is not supported'],
      [16, 'vless: port 0 out of range (1–65535)'],
    ]);
    const excerpts = result.rejected.map((r) => r.excerpt).join(' ');
    expect(excerpts).not.toContain('snell-secret');
    expect(excerpts).not.toContain(UUID_1);
  });

  it('a YAML that does not parse is one clear rejection', () => {
    const broken = parseSubscription('proxies:\n  - name: a\n    type: [unclosed\n');
    expect(broken.servers).toEqual([]);
    expect(broken.rejected).toEqual([{ line: 1, reason: expect.stringMatching(/^the Clash YAML does not parse/), excerpt: expect.any(String) }]);
  });

  it('a profile whose servers are only in proxy-providers says they are not fetched', () => {
    const providers = parseSubscription('proxies: []\nproxy-providers:\n  p1:\n    type: http\n    url: https://x.example.com/sub\n');
    expect(providers.servers).toEqual([]);
    expect(providers.rejected[0]?.reason).toMatch(/proxy-providers .* not fetched/);
  });

  it('keeps a Hysteria2 port-hopping range, and refuses an unknown cipher and an XTLS v1 flow by name', () => {
    const yaml = [
      'proxies:',
      '  - { name: hop, type: hysteria2, server: h.example.com, port: 443, ports: "20000-30000", password: pw }',
      '  - { name: odd, type: ss, server: s.example.com, port: 8388, cipher: "114514", password: pw }',
      `  - { name: v1, type: vless, server: v.example.com, port: 443, uuid: ${UUID_1}, tls: true, flow: xtls-rprx-direct }`,
    ].join('\n');
    const parsed = parseSubscription(yaml);
    expect(parsed.servers).toEqual([expect.objectContaining({ name: 'hop', port: 443, portHopping: '20000-30000' })]);
    expect(parsed.rejected.map((r) => r.reason)).toEqual(['ss: unknown cipher "114514"', expect.stringMatching(/^vless: the flow "xtls-rprx-direct" \(XTLS v1\) is obsolete/)]);
  });

  it('says which options the cores do not take (UDP over TCP, TUIC\'s 0-RTT), and refuses TUIC v4 by name', () => {
    const yaml = [
      'proxies:',
      '  - { name: uot, type: ss, server: s.example.com, port: 8388, cipher: aes-256-gcm, password: pw, udp-over-tcp: true }',
      `  - { name: rtt, type: tuic, server: t.example.com, port: 443, uuid: ${UUID_1}, password: pw, reduce-rtt: true }`,
      '  - { name: v4, type: tuic, server: t.example.com, port: 443, token: secret-token }',
    ].join('\n');
    const parsed = parseSubscription(yaml);
    expect(parsed.servers.map((s) => s.name)).toEqual(['uot', 'rtt']);
    expect(parsed.notes.map((n) => n.note)).toEqual(['ss: UDP over TCP is not applied (the core sends UDP as UDP)', 'tuic: 0-RTT (reduce-rtt) is not applied: the handshake takes its round trip']);
    expect(parsed.rejected.map((r) => r.reason)).toEqual(['tuic: TUIC v4 (a token), which neither sing-box nor Xray speaks: only TUIC v5 (uuid and password)']);
  });

  it('a Hysteria2 proxy with `ports` and no `port` hops over them, its first hop the port (Mihomo needs no port then)', () => {
    const parsed = parseSubscription('proxies:\n  - { name: hops, type: hysteria2, server: h.example.com, ports: "20000-30000,40000", password: pw }');
    expect(parsed.rejected).toEqual([]);
    expect(parsed.servers).toEqual([expect.objectContaining({ name: 'hops', port: 20000, portHopping: '20000-30000,40000' })]);
  });

  it('AnyTLS with reality-opts stays REALITY, not plain TLS to the site it borrows', () => {
    const parsed = parseSubscription(`proxies:\n  - { name: a, type: anytls, server: a.example.com, port: 443, password: pw, sni: www.microsoft.com, client-fingerprint: chrome, reality-opts: { public-key: ${PBK}, short-id: 6b } }`);
    expect(parsed.servers[0]).toMatchObject({ protocol: 'anytls', security: { type: 'reality', sni: 'www.microsoft.com', publicKey: PBK, shortId: '6b' } });
  });

  it('WebSocket early data given as max-early-data becomes ?ed= in the path when it goes in Sec-WebSocket-Protocol, and is left out with a note otherwise', () => {
    const yaml = [
      'proxies:',
      `  - { name: ed, type: vless, server: v.example.com, port: 443, uuid: ${UUID_1}, tls: true, network: ws, ws-opts: { path: /ws, max-early-data: 2048, early-data-header-name: Sec-WebSocket-Protocol } }`,
      `  - { name: in-path, type: vless, server: v.example.com, port: 443, uuid: ${UUID_1}, tls: true, network: ws, ws-opts: { path: /ws?ed=1024, max-early-data: 2048, early-data-header-name: Sec-WebSocket-Protocol } }`,
      `  - { name: other, type: vless, server: v.example.com, port: 443, uuid: ${UUID_1}, tls: true, network: ws, ws-opts: { path: /ws, max-early-data: 2048, early-data-header-name: X-Early } }`,
    ].join('\n');
    const parsed = parseSubscription(yaml);
    expect(parsed.servers.map((server) => server.transport.path)).toEqual(['/ws?ed=2048', '/ws?ed=1024', '/ws']);
    expect(parsed.notes.map((n) => n.note)).toEqual(['vless: WebSocket early data in the header "X-Early" is not what Xray sends (Sec-WebSocket-Protocol): left out, the connection opens without it']);
  });

  it('refuses an AmneziaWG server (amnezia-wg-option) with the reason, where plain WireGuard would fail every handshake', () => {
    const yaml = `proxies:\n  - { name: awg, type: wireguard, server: w.example.com, port: 51820, ip: 10.0.0.2, private-key: "${WG_PRIVATE}", public-key: "${WG_PUBLIC}", amnezia-wg-option: { jc: 5, jmin: 500, jmax: 501, s1: 30, s2: 40, h1: 123456, h2: 67543, h3: 123123, h4: 32345 } }`;
    const parsed = parseSubscription(yaml);
    expect(parsed.servers).toEqual([]);
    expect(parsed.rejected.map((r) => r.reason)).toEqual(['wireguard: an AmneziaWG server (junk packets or magic headers), which neither Xray nor sing-box can reach']);
  });

  it('applies `<<: *anchor` merge keys, as Mihomo does: settings shared through an anchor reach every proxy that merges it', () => {
    const yaml = [
      'x-common: &common',
      '  udp: true',
      '  skip-cert-verify: true',
      '  client-fingerprint: chrome',
      'proxies:',
      '  - name: vmess-ws',
      '    <<: *common',
      '    type: vmess',
      '    server: 192.0.2.40',
      '    port: 443',
      `    uuid: ${UUID_1}`,
      '    alterId: 0',
      '    cipher: auto',
      '    tls: true',
      '    servername: v.example.com',
      '    network: ws',
      '    ws-opts: { path: /path, headers: { Host: v.example.com } }',
    ].join('\n');
    const parsed = parseSubscription(yaml);
    expect(parsed.servers[0]).toMatchObject({ name: 'vmess-ws', security: { type: 'tls', sni: 'v.example.com', fingerprint: 'chrome', allowInsecure: true } });
  });

  // Short-ids and a password from bug reports against Clash-family tools (OpenClash, subconverter,
  // 3x-ui, a subscription generator; Clash's own tracker): each read as a number, each broke the server.
  it.each([
    ['00000000', 'OpenClash rewrote it to 0'],
    ['09561058', 'subconverter output, leading zero'],
    ['2351e1', '3x-ui output, read as the float 23510'],
    ['38e92059', 'random hex shaped like an exponent, read as Infinity'],
  ])('keeps the unquoted REALITY short-id %s as written, as Mihomo reads it (%s)', (shortId) => {
    const yaml = `proxies:\n  - { name: r, type: vless, server: 192.0.2.107, port: 443, uuid: ${UUID_1}, network: tcp, tls: true, servername: www.example.com, client-fingerprint: chrome, reality-opts: { public-key: ${PBK}, short-id: ${shortId} } }\n`;
    const parsed = parseSubscription(yaml);
    expect(parsed.rejected).toEqual([]);
    expect(parsed.servers[0]?.security).toMatchObject({ type: 'reality', shortId });
  });

  it('keeps an unquoted all-digit password with a leading zero as written, and ports and plain numbers as numbers', () => {
    const yaml = [
      'proxies:',
      '  - { name: digits, type: trojan, server: 192.0.2.109, port: 443, password: 0123456789, sni: t.example.com }',
      `  - { name: plain, type: vless, server: 192.0.2.110, port: 0443, uuid: ${UUID_1}, tls: true, reality-opts: { public-key: ${PBK}, short-id: 14174953 } }`,
    ].join('\n');
    const byName = new Map(parseSubscription(yaml).servers.map((s) => [s.name, s]));
    expect(byName.get('digits')).toMatchObject({ protocol: 'trojan', port: 443, password: '0123456789' });
    expect(byName.get('plain')).toMatchObject({ port: 443, security: { shortId: '14174953' } });
  });
});
