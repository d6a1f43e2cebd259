import { describe, expect, it } from 'vitest';
import { parseSubscription } from './index';

// Encrypted Client Hello configs as links (`ech=`), Xray (`echConfigList`), sing-box (`tls.ech`)
// and Mihomo (`ech-opts`) carry them. A base64 ECHConfigList is kept for the core; anything a
// core cannot use is said on the server, never dropped unsaid (without ECH the handshake shows
// the real server name).
const UUID = 'a7e505a9-d63f-48ac-92f3-85ebcd7d7018';
/** From `sing-box generate ech-keypair decoy.example.com` (public name decoy.example.com). */
const ECH = 'AEz+DQBIAAAgACCrViCgiqG5CDnng32rNVP/N/AHtbqAaGCshOV24QXjMQAMAAEAAQABAAIAAQADABFkZWNveS5leGFtcGxlLmNvbQAA';
const pct = encodeURIComponent;
const vlessWs = (query: string) => `vless://${UUID}@cdn.example.com:443?type=ws&path=%2Fws&host=real.example.com&security=tls&sni=real.example.com&${query}#ech`;

const KEPT: [string, string][] = [
  ['vless over WebSocket + TLS, the config percent-encoded', vlessWs(`ech=${pct(ECH)}`)],
  ['the config written raw (its + and / as they are)', vlessWs(`ech=${ECH}`)],
  ['the config in base64url', vlessWs(`ech=${Buffer.from(ECH, 'base64').toString('base64url')}`)],
  ['trojan', `trojan://pw12@t.example.com:443?sni=real.example.com&ech=${pct(ECH)}#t`],
  ["hysteria2 (Hysteria's own clients read ech= too)", `hysteria2://pw@hy.example.com:443/?sni=real.example.com&ech=${pct(ECH)}#hy`],
  ['tuic', `tuic://${UUID}:pw@tuic.example.com:443?sni=real.example.com&alpn=h3&ech=${pct(ECH)}#tu`],
  ['an Xray config (tlsSettings.echConfigList)', JSON.stringify({ outbounds: [{ tag: 'x', protocol: 'trojan', settings: { servers: [{ address: 't.example.com', port: 443, password: 'pw' }] }, streamSettings: { network: 'tcp', security: 'tls', tlsSettings: { serverName: 'real.example.com', echConfigList: ECH } } }] })],
  [
    'a sing-box config (tls.ech.config, the PEM lines sing-box generate prints)',
    JSON.stringify({ outbounds: [{ type: 'trojan', tag: 's', server: 't.example.com', server_port: 443, password: 'pw', tls: { enabled: true, server_name: 'real.example.com', ech: { enabled: true, config: ['-----BEGIN ECH CONFIGS-----', ECH.slice(0, 64), ECH.slice(64), '-----END ECH CONFIGS-----'] } } }] }),
  ],
  ['a Mihomo profile (ech-opts)', `proxies:\n  - { name: m, type: trojan, server: t.example.com, port: 443, password: pw, sni: real.example.com, ech-opts: { enable: true, config: "${ECH}" } }\n`],
];

describe('an ECH config list a core can use is kept on the server', () => {
  it.each(KEPT)('%s', (_title, body) => {
    const result = parseSubscription(body);
    expect(result.rejected).toEqual([]);
    expect(result.notes).toEqual([]);
    expect(result.servers[0]?.security).toMatchObject({ type: 'tls', sni: 'real.example.com', ech: ECH });
  });
});

const NOT_APPLIED: [string, string, RegExp][] = [
  ['an empty ech= (look it up in DNS, and no resolver given)', vlessWs('ech='), /^vless: ECH is not applied \(the entry asks to look the ECH config up in DNS, and gives none\); the TLS handshake shows the server name$/],
  ["Xray's DNS lookup form, naming the provider's resolver", vlessWs(`ech=${pct('cloudflare-ech.com+https://dns.example.net/dns-query')}`), /^vless: ECH is not applied \(the ECH config is to be looked up through a resolver the provider names\)/],
  ['text that is no ECH config list', vlessWs(`ech=${pct(Buffer.from('not an ech config').toString('base64'))}`), /^vless: ECH is not applied \(the value is not an ECH config list\)/],
  ['a config list cut short by a copy', vlessWs(`ech=${pct(ECH.slice(0, 40))}`), /^vless: ECH is not applied \(the value is not an ECH config list\)/],
  ['ECH on REALITY', `vless://${UUID}@r.example.com:443?security=reality&pbk=58n0Yz_zrK8EhIvLN8MRX-_f0hjqGJRoI3vvVoVhemA&sni=www.speedtest.net&ech=${pct(ECH)}#r`, /^vless: ECH is ignored: it belongs to TLS, and this entry uses REALITY$/],
  ['ECH on a link without TLS', `vless://${UUID}@p.example.com:80?type=ws&path=%2F&ech=${pct(ECH)}#p`, /^vless: ECH is ignored: it belongs to TLS, and this entry uses no TLS$/],
  ['sing-box ECH enabled without a config (sing-box looks it up in DNS)', JSON.stringify({ outbounds: [{ type: 'trojan', tag: 's', server: 't.example.com', server_port: 443, password: 'pw', tls: { enabled: true, ech: { enabled: true } } }] }), /^trojan: ECH is not applied \(the entry asks to look the ECH config up in DNS/],
];

describe('an ECH option a core cannot use is said on the server, which is kept', () => {
  it.each(NOT_APPLIED)('%s', (_title, body, note) => {
    const result = parseSubscription(body);
    expect(result.rejected).toEqual([]);
    expect(result.servers).toHaveLength(1);
    expect(result.servers[0]?.security).not.toHaveProperty('ech');
    expect(result.notes.map((n) => n.note)).toEqual([expect.stringMatching(note)]);
  });

  it('a link without ech= says nothing about ECH', () => {
    const result = parseSubscription(vlessWs('fp=chrome'));
    expect(result.notes).toEqual([]);
    expect(result.servers[0]?.security).not.toHaveProperty('ech');
  });
});
