import { describe, expect, it } from 'vitest';
import { parseSubscription } from './index';

// Certificate pins (`pcs`) and the name to verify by (`vcn`), as panels write them into links and
// Xray configs since Xray dropped allowInsecure.
const UUID = 'c1be8c64-5e2f-412b-89b3-4844e675a720';
const PIN_UPPER = '54807151BD83523FEE9081F08D708AECB59A3F3E75F154D7E96D35F51149FF8E';
const PIN = PIN_UPPER.toLowerCase();
const PIN_2 = '5870bf1355c3b4ef09ad3daf8e1efe58cc01b4ec8141febe6f408e40339f17b8';
const PIN_2_OPENSSL = '58:70:BF:13:55:C3:B4:EF:09:AD:3D:AF:8E:1E:FE:58:CC:01:B4:EC:81:41:FE:BE:6F:40:8E:40:33:9F:17:B8';
const b64 = (s: string) => Buffer.from(s, 'utf8').toString('base64');
const pct = encodeURIComponent;

/** The link that started this: a self-signed XHTTP server, pinned, verified by another name. */
const REAL_WORLD = `vless://${UUID}@sub.domain.net:443?encryption=none&type=xhttp&security=tls&sni=sub.domain.net&alpn&host=sub.domain.net&path=/new&mode=packet-up&pcs=${PIN_UPPER}&vcn=test.dom.com#TEST`;

const ACCEPTED: [string, string, Record<string, unknown>][] = [
  ['vless xhttp as a panel writes it: pin upper case, a name to verify by', REAL_WORLD, { pinnedCertSha256: [PIN], verifyName: 'test.dom.com', sni: 'sub.domain.net' }],
  ['the colon form openssl prints', `vless://${UUID}@v.example.com:443?security=tls&pcs=${pct(PIN_2_OPENSSL)}#x`, { pinnedCertSha256: [PIN_2] }],
  ['several pins joined with ~, any of them passes', `vless://${UUID}@v.example.com:443?security=tls&pcs=${PIN}~${PIN_2}#x`, { pinnedCertSha256: [PIN, PIN_2] }],
  ['several pins joined with , (the Xray config form)', `vless://${UUID}@v.example.com:443?security=tls&pcs=${PIN},${PIN_2_OPENSSL}#x`, { pinnedCertSha256: [PIN, PIN_2] }],
  ['the same pin twice is one pin', `vless://${UUID}@v.example.com:443?security=tls&pcs=${PIN_UPPER}~${PIN}#x`, { pinnedCertSha256: [PIN] }],
  ['trojan grpc with the config names of both', `trojan://pw@t.example.com:443?type=grpc&serviceName=g&pinnedPeerCertSha256=${PIN}&verifyPeerCertByName=real.example.com#x`, { pinnedCertSha256: [PIN], verifyName: 'real.example.com' }],
  ['vless grpc', `vless://${UUID}@g.example.com:443?type=grpc&serviceName=g&security=tls&pcs=${PIN}#x`, { pinnedCertSha256: [PIN] }],
  ['URL-style vmess', `vmess://${UUID}@m.example.com:443?type=ws&security=tls&pcs=${PIN}&vcn=m.example.org#x`, { pinnedCertSha256: [PIN], verifyName: 'm.example.org' }],
  ['vmess JSON with the query names (this app exports them so)', `vmess://${b64(JSON.stringify({ v: '2', ps: 'j', add: 'j.example.com', port: '443', id: UUID, aid: '0', net: 'ws', tls: 'tls', pcs: PIN, vcn: 'j.example.org' }))}`, { pinnedCertSha256: [PIN], verifyName: 'j.example.org' }],
  ["hysteria2 with Hysteria's own pinSHA256", `hysteria2://pw@hy.example.com:443/?sni=hy.example.com&pinSHA256=${pct(PIN_2_OPENSSL)}#hy`, { pinnedCertSha256: [PIN_2] }],
  // Xray splits vcn at `,` and trims each name: a space after the comma is no part of a name.
  ['several names to verify by, a space after the comma (Xray trims each)', `vless://${UUID}@v.example.com:443?security=tls&sni=v.example.com&vcn=${pct('a.example.com, b.example.com')}#x`, { verifyName: 'a.example.com,b.example.com' }],
  ['a trailing comma and blanks around the names', `trojan://pw@t.example.com:443?vcn=${pct(' real.example.com ,')}#x`, { verifyName: 'real.example.com' }],
  ['hysteria2 with pcs, which wins over pinSHA256', `hysteria2://pw@hy.example.com:443/?pcs=${PIN}&pinSHA256=${PIN_2}&vcn=hy.example.org#hy`, { pinnedCertSha256: [PIN], verifyName: 'hy.example.org' }],
];

describe('certificate pins and names from share links', () => {
  it.each(ACCEPTED)('%s', (_title, link, security) => {
    const result = parseSubscription(link);
    expect(result.rejected).toEqual([]);
    expect(result.servers[0]?.security).toMatchObject(security);
  });

  it('an empty pcs leaves the security without pin fields', () => {
    const security = parseSubscription(`vless://${UUID}@v.example.com:443?security=tls&pcs=&vcn=#x`).servers[0]?.security;
    expect(security).not.toHaveProperty('pinnedCertSha256');
    expect(security).not.toHaveProperty('verifyName');
  });

  it('REALITY authenticates by its public key: a pin there is not kept', () => {
    const link = `vless://${UUID}@r.example.com:443?security=reality&pbk=58n0Yz_zrK8EhIvLN8MRX-_f0hjqGJRoI3vvVoVhemA&sni=www.speedtest.net&pcs=${PIN}#r`;
    expect(parseSubscription(link).servers[0]?.security).not.toHaveProperty('pinnedCertSha256');
  });
});

const REJECTED: [string, string, RegExp][] = [
  ['a pin cut short', `vless://${UUID}@v.example.com:443?security=tls&pcs=${PIN.slice(0, 60)}#x`, /^vless: the certificate pin "54807151bd83523fee90…" is not a SHA-256 fingerprint/i],
  ['a pin with a letter that is no hex digit', `trojan://pw@t.example.com:443?pcs=${PIN.slice(0, 63)}g#x`, /^trojan: the certificate pin .* is not a SHA-256 fingerprint/],
  ['a base64 pin (the chain-hash form of v2ray)', `vless://${UUID}@v.example.com:443?security=tls&pcs=${pct('n9j2l8pl5xvSQzgfCkf0rnVXuR4XYyJBYXk8wuVO0Ls=')}#x`, /^vless: the certificate pin .* is not a SHA-256 fingerprint/],
  ['one bad pin among good ones', `vless://${UUID}@v.example.com:443?security=tls&pcs=${PIN}~abc#x`, /^vless: the certificate pin "abc" is not a SHA-256 fingerprint/],
  ['a hysteria2 pinSHA256 cut short', `hysteria2://pw@hy.example.com:443/?pinSHA256=AA:BB#hy`, /^hysteria2: the certificate pin "AA:BB"/],
  ['a name to verify by that carries the UUID', `vless://${UUID}@v.example.com:443?security=tls&vcn=${pct(`${UUID}@v.example.com`)}#x`, /^vless: the name to verify the certificate by \(vcn\) "\*\*\*@v\.example\.com" is not a host name/],
  ['a name to verify by that is no host name', `vless://${UUID}@v.example.com:443?security=tls&vcn=${pct('not a name')}#x`, /^vless: the name to verify the certificate by \(vcn\) "not a name" is not a host name/],
];

describe('a pin that is no SHA-256 refuses its own entry, and only that one', () => {
  it.each(REJECTED)('%s', (_title, link, reason) => {
    const good = `vless://${UUID}@good.example.com:443?security=tls&pcs=${PIN}#good`;
    const result = parseSubscription(`${good}\n${link}\n`);
    expect(result.servers.map((s) => s.name)).toEqual(['good']);
    expect(result.rejected).toEqual([expect.objectContaining({ line: 2, reason: expect.stringMatching(reason) })]);
  });
});

describe('certificate pins from Xray configs and Mihomo profiles', () => {
  const outbound = (tlsSettings: Record<string, unknown>, tag = 'pinned') => ({
    tag,
    protocol: 'vless',
    settings: { vnext: [{ address: 'x.example.com', port: 443, users: [{ id: UUID, encryption: 'none' }] }] },
    streamSettings: { network: 'tcp', security: 'tls', tlsSettings: { serverName: 'x.example.com', ...tlsSettings } },
  });

  it('reads pinnedPeerCertSha256 (a string, `,` between pins) and verifyPeerCertByName', () => {
    const result = parseSubscription(JSON.stringify({ outbounds: [outbound({ pinnedPeerCertSha256: `${PIN_UPPER},${PIN_2_OPENSSL}`, verifyPeerCertByName: 'real.example.com' })] }));
    expect(result.servers[0]?.security).toMatchObject({ pinnedCertSha256: [PIN, PIN_2], verifyName: 'real.example.com' });
  });

  it('reads verifyPeerCertByName with a space after its commas as Xray does: each name trimmed', () => {
    const result = parseSubscription(JSON.stringify({ outbounds: [outbound({ verifyPeerCertByName: 'a.example.com, b.example.com' })] }));
    expect(result.rejected).toEqual([]);
    expect(result.servers[0]?.security.verifyName).toBe('a.example.com,b.example.com');
  });

  it('reads a list of pins, as some generators write them', () => {
    const result = parseSubscription(JSON.stringify({ outbounds: [outbound({ pinnedPeerCertSha256: [PIN, PIN_2] })] }));
    expect(result.servers[0]?.security.pinnedCertSha256).toEqual([PIN, PIN_2]);
  });

  it('a bad pin refuses that outbound and keeps the others', () => {
    const result = parseSubscription(JSON.stringify({ outbounds: [outbound({ pinnedPeerCertSha256: 'deadbeef' }, 'bad'), outbound({}, 'plain')] }));
    expect(result.servers.map((s) => s.name)).toEqual(['plain']);
    expect(result.rejected).toEqual([expect.objectContaining({ reason: expect.stringMatching(/certificate pin "deadbeef" is not a SHA-256/) })]);
  });

  it("takes Mihomo's fingerprint (SHA-256 of the whole certificate) as a pin, and not a uTLS name put there", () => {
    const profile = (fingerprint: string) => `proxies:\n  - { name: t, type: trojan, server: t.example.com, port: 443, password: pw, sni: t.example.com, fingerprint: "${fingerprint}" }\n`;
    expect(parseSubscription(profile(PIN_2_OPENSSL)).servers[0]?.security.pinnedCertSha256).toEqual([PIN_2]);
    expect(parseSubscription(profile('chrome')).servers[0]?.security).not.toHaveProperty('pinnedCertSha256');
  });
});
