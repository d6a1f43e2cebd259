/** Clash YAML and sing-box JSON forms of the protocols sing-box carries (AnyTLS, Hysteria v1, Naive, ShadowTLS). */
import { describe, expect, it } from 'vitest';
import { parseSubscription } from './index';

describe('Clash YAML: type anytls and hysteria', () => {
  const yaml = [
    'proxies:',
    '  - { name: "AnyTLS", type: anytls, server: any.example.com, port: 443, password: "pw 1", client-fingerprint: chrome, sni: real.example.com, skip-cert-verify: true, udp: true }',
    '  - { name: "Hy1", type: hysteria, server: hy.example.com, port: 443, ports: "20000-30000", auth-str: "au th", obfs: "xplus-pass", protocol: udp, up: "30 Mbps", down: "200 Mbps", sni: hy.example.com, alpn: [hysteria] }',
    '  - { name: "Hy1 b64", type: hysteria, server: hy.example.com, port: 8443, auth: "c2VjcmV0", up: 10, down: 50 }',
    '  - { name: "Hy1 no speeds", type: hysteria, server: hy.example.com, port: 443, auth-str: x }',
    '  - { name: "STLS", type: ss, server: stls.example.com, port: 443, cipher: 2022-blake3-aes-128-gcm, password: "BwcHBwcHBwcHBwcHBwcHBw==", plugin: shadow-tls, plugin-opts: { host: www.apple.com, password: tls-pass, version: 3 } }',
  ].join('\n');
  const result = parseSubscription(yaml);

  it('reads each as a server', () => {
    expect(result.servers).toMatchObject([
      { name: 'AnyTLS', protocol: 'anytls', address: 'any.example.com', port: 443, password: 'pw 1', security: { type: 'tls', sni: 'real.example.com', fingerprint: 'chrome', allowInsecure: true } },
      { name: 'Hy1', protocol: 'hysteria', port: 443, portHopping: '20000-30000', auth: 'au th', obfs: 'xplus-pass', carrier: 'udp', upMbps: 30, downMbps: 200, security: { type: 'tls', sni: 'hy.example.com', alpn: ['hysteria'] } },
      { name: 'Hy1 b64', protocol: 'hysteria', port: 8443, auth: 'secret', upMbps: 10, downMbps: 50 },
      { name: 'STLS', protocol: 'shadowsocks', method: '2022-blake3-aes-128-gcm', plugin: { name: 'shadow-tls', options: 'host=www.apple.com;password=tls-pass;version=3' } },
    ]);
  });

  it('refuses Hysteria v1 without its speeds, by position', () => {
    expect(result.rejected.map((r) => [r.line, r.reason])).toEqual([[4, 'hysteria: no up and down speeds, which Hysteria v1 needs']]);
  });
});

describe('sing-box JSON: anytls, hysteria, naive and a shadowsocks outbound behind shadowtls', () => {
  const config = {
    outbounds: [
      { type: 'anytls', tag: 'any', server: 'any.example.com', server_port: 443, password: 'pw', tls: { enabled: true, server_name: 'real.example.com', utls: { enabled: true, fingerprint: 'firefox' } } },
      { type: 'hysteria', tag: 'hy1', server: 'hy.example.com', server_ports: ['20000:30000'], up_mbps: 20, down_mbps: 100, auth_str: 'au', obfs: 'xp', tls: { enabled: true, server_name: 'hy.example.com', alpn: ['hysteria'] } },
      { type: 'naive', tag: 'naive', server: 'n.example.com', server_port: 443, username: 'u', password: 'p', tls: { enabled: true, server_name: 'n.example.com' } },
      { type: 'shadowsocks', tag: 'ss-stls', method: '2022-blake3-aes-128-gcm', password: 'BwcHBwcHBwcHBwcHBwcHBw==', detour: 'stls' },
      { type: 'shadowtls', tag: 'stls', server: 'stls.example.com', server_port: 8443, version: 3, password: 'tls-pass', tls: { enabled: true, server_name: 'www.apple.com' } },
    ],
  };
  const result = parseSubscription(JSON.stringify(config));

  it('reads each as a server; the shadowtls hop becomes the shadowsocks server’s ShadowTLS plugin, at its address', () => {
    expect(result.rejected).toEqual([]);
    expect(result.servers).toMatchObject([
      { name: 'any', protocol: 'anytls', password: 'pw', security: { type: 'tls', sni: 'real.example.com', fingerprint: 'firefox' } },
      { name: 'hy1', protocol: 'hysteria', port: 20000, portHopping: '20000-30000', upMbps: 20, downMbps: 100, auth: 'au', obfs: 'xp' },
      { name: 'naive', protocol: 'naive', username: 'u', password: 'p', security: { type: 'tls', sni: 'n.example.com' } },
      { name: 'ss-stls', protocol: 'shadowsocks', address: 'stls.example.com', port: 8443, plugin: { name: 'shadow-tls', options: 'host=www.apple.com;password=tls-pass;version=3' } },
    ]);
    expect(result.servers).toHaveLength(4);
    expect(result.servers[3]).not.toHaveProperty('viaName');
  });
});
