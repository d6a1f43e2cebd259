import { describe, expect, it } from 'vitest';
import { parseSubscription } from './index';

// REALITY public keys in every format that carries one. Xray and sing-box decode the key as
// unpadded base64url of 32 bytes and refuse the whole config otherwise, so a bad key must refuse
// its own entry here, with the reason, and leave the other entries of the same body alone.
const UUID = 'a7e505a9-d63f-48ac-92f3-85ebcd7d7018';
/** As `xray x25519` prints it. */
const PBK = '58n0Yz_zrK8EhIvLN8MRX-_f0hjqGJRoI3vvVoVhemA';
/** The same 32 bytes in standard base64, padded ("+", "/", "="). */
const PBK_STD = Buffer.from(PBK, 'base64url').toString('base64');
const pct = encodeURIComponent;

/** Two entries of one body: "good" with a valid key, "bad" with `key`. */
type Body = (key: string) => string;

const FORMATS: [string, Body][] = [
  [
    'share links',
    (key) =>
      [
        `vless://${UUID}@good.example.com:443?security=reality&sni=www.speedtest.net&fp=chrome&pbk=${PBK}&sid=6ba85179e30d4fc2&type=tcp&flow=xtls-rprx-vision#good`,
        `vless://${UUID}@bad.example.com:443?security=reality&sni=www.speedtest.net&fp=chrome&pbk=${pct(key)}&sid=6ba85179e30d4fc2&type=tcp&flow=xtls-rprx-vision#bad`,
      ].join('\n'),
  ],
  [
    'Xray JSON (realitySettings.password, and the older publicKey)',
    (key) => {
      const outbound = (tag: string, reality: Record<string, string>) => ({
        tag,
        protocol: 'vless',
        settings: { vnext: [{ address: `${tag}.example.com`, port: 443, users: [{ id: UUID, encryption: 'none', flow: 'xtls-rprx-vision' }] }] },
        streamSettings: { network: 'raw', security: 'reality', realitySettings: { serverName: 'www.speedtest.net', fingerprint: 'chrome', shortId: '6ba85179e30d4fc2', ...reality } },
      });
      return JSON.stringify({ outbounds: [outbound('good', { password: PBK }), outbound('bad', { publicKey: key })] });
    },
  ],
  [
    'sing-box JSON (tls.reality.public_key)',
    (key) => {
      const outbound = (tag: string, publicKey: string) => ({
        type: 'vless',
        tag,
        server: `${tag}.example.com`,
        server_port: 443,
        uuid: UUID,
        flow: 'xtls-rprx-vision',
        tls: { enabled: true, server_name: 'www.speedtest.net', utls: { enabled: true, fingerprint: 'chrome' }, reality: { enabled: true, public_key: publicKey, short_id: '6ba85179e30d4fc2' } },
      });
      return JSON.stringify({ outbounds: [outbound('good', PBK), outbound('bad', key)] });
    },
  ],
  [
    'Clash YAML (reality-opts.public-key)',
    (key) =>
      [
        'proxies:',
        `  - { name: good, type: vless, server: good.example.com, port: 443, uuid: ${UUID}, network: tcp, tls: true, servername: www.speedtest.net, flow: xtls-rprx-vision, client-fingerprint: chrome, reality-opts: { public-key: ${PBK}, short-id: 6ba85179e30d4fc2 } }`,
        `  - { name: bad, type: vless, server: bad.example.com, port: 443, uuid: ${UUID}, network: tcp, tls: true, servername: www.speedtest.net, flow: xtls-rprx-vision, client-fingerprint: chrome, reality-opts: { public-key: "${key}", short-id: 6ba85179e30d4fc2 } }`,
        '',
      ].join('\n'),
  ],
];

const BAD_KEYS: [string, string, string][] = [
  ['a placeholder a panel left in ("pubkey")', 'pubkey', 'pubkey'],
  ['a key cut short by a copy (31 bytes)', PBK.slice(0, 42), `${PBK.slice(0, 20)}…`],
  ['a key one byte too long (33 bytes)', `${PBK}AAA`, `${PBK.slice(0, 20)}…`],
  ['a hex string (a short id pasted as the key)', '6ba85179e30d4fc26ba85179e30d4fc2', '6ba85179e30d4fc26ba8…'],
];

describe.each(FORMATS)('REALITY public keys in %s', (_format, body) => {
  it('a 32-byte base64url key is kept as written', () => {
    const result = parseSubscription(body(PBK));
    expect(result.rejected).toEqual([]);
    expect(result.servers.map((s) => s.security.publicKey)).toEqual([PBK, PBK]);
  });

  it('the same key in standard base64 is kept in the base64url form the cores decode', () => {
    const result = parseSubscription(body(PBK_STD));
    expect(result.rejected).toEqual([]);
    expect(result.servers.map((s) => [s.name, s.security.publicKey])).toEqual([
      ['good', PBK],
      ['bad', PBK],
    ]);
  });

  it.each(BAD_KEYS)('%s refuses that entry alone, naming the key', (_title, key, shown) => {
    const result = parseSubscription(body(key));
    expect(result.servers.map((s) => s.name)).toEqual(['good']);
    expect(result.rejected).toHaveLength(1);
    expect(result.rejected[0]?.reason).toMatch(/^vless: the REALITY public key "(.+)" is not an X25519 key \(32 bytes in base64url/);
    expect(result.rejected[0]?.reason).toContain(`"${shown}"`);
  });
});
