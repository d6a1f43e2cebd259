import { describe, expect, it } from 'vitest';
import { parseSubscription } from './index';

// VMess body ciphers in every shape that carries one. Xray runs a name it does not know as
// "auto" (infra/conf/vmess.go) and sing-box refuses the whole config for it: the parser reads it
// as Xray does and says so on the server.
const UUID = 'a7e505a9-d63f-48ac-92f3-85ebcd7d7018';
const b64 = (s: string) => Buffer.from(s, 'utf8').toString('base64');

/** One VMess entry whose cipher is `cipher`, in each format. */
const FORMATS: [string, (cipher: string) => string][] = [
  ['a v2rayN JSON link (scy)', (cipher) => `vmess://${b64(JSON.stringify({ v: '2', ps: 'vm', add: 'vm.example.com', port: '443', id: UUID, aid: '0', scy: cipher, net: 'ws', type: 'none', host: 'vm.example.com', path: '/vm', tls: 'tls' }))}`],
  ['a Shadowrocket link (cipher:uuid@host:port)', (cipher) => `vmess://${b64(`${cipher}:${UUID}@vm.example.com:443`)}?remarks=vm&obfs=websocket&path=/vm&tls=1`],
  ['a Quantumult link', (cipher) => `vmess://${b64(`vm = vmess, vm.example.com, 443, ${cipher}, "${UUID}", over-tls=true, obfs=ws, obfs-path="/vm"`)}`],
  ['a URL-style link (encryption)', (cipher) => `vmess://${UUID}@vm.example.com:443?type=ws&security=tls&path=%2Fvm&encryption=${cipher}#vm`],
  [
    'an Xray config (users[].security)',
    (cipher) =>
      JSON.stringify({
        outbounds: [{ tag: 'vm', protocol: 'vmess', settings: { vnext: [{ address: 'vm.example.com', port: 443, users: [{ id: UUID, alterId: 0, security: cipher }] }] }, streamSettings: { network: 'ws', security: 'tls', wsSettings: { path: '/vm' } } }],
      }),
  ],
  ['a sing-box config (security)', (cipher) => JSON.stringify({ outbounds: [{ type: 'vmess', tag: 'vm', server: 'vm.example.com', server_port: 443, uuid: UUID, security: cipher, tls: { enabled: true } }] })],
  ['a Clash profile (cipher)', (cipher) => `proxies:\n  - { name: vm, type: vmess, server: vm.example.com, port: 443, uuid: ${UUID}, alterId: 0, cipher: ${cipher}, tls: true }\n`],
];

/** [the cipher as written, what the server runs] */
const KNOWN: [string, string][] = [
  ['auto', 'auto'],
  ['aes-128-gcm', 'aes-128-gcm'],
  ['chacha20-poly1305', 'chacha20-poly1305'],
  ['none', 'none'],
  ['zero', 'zero'],
  ['AES-128-GCM', 'aes-128-gcm'],
  // Quantumult's and Surge's name for the same AEAD.
  ['chacha20-ietf-poly1305', 'chacha20-poly1305'],
];

/** Names panels put there that no VMess core knows: the legacy CFB cipher, Shadowsocks ciphers. */
const UNKNOWN = ['aes-128-cfb', 'aes-256-gcm', 'rc4-md5'];

describe.each(FORMATS)('the VMess cipher of %s', (_format, entry) => {
  it.each(KNOWN)('"%s" runs as %s, with no note', (written, runs) => {
    const result = parseSubscription(entry(written));
    expect(result.rejected).toEqual([]);
    expect(result.servers[0]).toMatchObject({ protocol: 'vmess', cipher: runs });
    expect(result.notes).toEqual([]);
  });

  it.each(UNKNOWN)('"%s" (unknown) runs as auto, as Xray does, and the server says so', (written) => {
    const result = parseSubscription(entry(written));
    expect(result.rejected).toEqual([]);
    expect(result.servers[0]).toMatchObject({ protocol: 'vmess', cipher: 'auto' });
    expect(result.notes.map((n) => n.note)).toEqual([`vmess: the VMess cipher "${written}" is unknown; "auto" is used instead, as Xray does`]);
  });
});
