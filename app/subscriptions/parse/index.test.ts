import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { PROTOCOLS } from '../../../shared/domain/server';
import { sampleLinks, sampleSubscriptionBody } from '../testing/sample-links';
import { parseSubscription } from './index';

const UUID = 'a7e505a9-d63f-48ac-92f3-85ebcd7d7018';
const LINKS = [
  `vless://${UUID}@a.example.com:443?security=tls&type=ws&path=%2Fws#${encodeURIComponent('🇮🇷 ایران')}`,
  `trojan://secret-pw@b.example.com:443?sni=b.example.com#${encodeURIComponent('🇷🇺 Россия')}`,
  `ss://${Buffer.from('aes-256-gcm:ss-pw').toString('base64url')}@[2001:db8::7]:8388#v6`,
];
const LIST = LINKS.join('\r\n');

function wrap(text: string, width: number, eol: string): string {
  const out: string[] = [];
  for (let i = 0; i < text.length; i += width) out.push(text.slice(i, i + width));
  return out.join(eol);
}

describe('parseSubscription: format detection', () => {
  const standard = Buffer.from(LIST).toString('base64');
  const cases: [string, string | Buffer, string][] = [
    ['plain lines with CRLF', LIST, 'links'],
    ['standard base64 with padding', standard, 'base64'],
    ['standard base64 line-wrapped at 76 with CRLF and surrounding whitespace', `\r\n  ${wrap(standard, 76, '\r\n')}  \r\n`, 'base64'],
    ['URL-safe base64 without padding', Buffer.from(LIST).toString('base64url'), 'base64'],
    ['each line base64 on its own', LINKS.map((l) => Buffer.from(l).toString('base64')).join('\n'), 'base64'],
    ['a Buffer with a UTF-8 byte-order mark', Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(LIST)]), 'links'],
    ['base64 of a Clash YAML', Buffer.from(`proxies:\n  - {name: t, type: trojan, server: t.example.com, port: 443, password: pw}\n`).toString('base64'), 'base64/clash-yaml'],
  ];
  it.each(cases)('%s', (_title, body, format) => {
    const result = parseSubscription(body);
    expect(result.format).toBe(format);
    expect(result.rejected).toEqual([]);
    expect(result.servers.length).toBeGreaterThan(0);
    if (format !== 'base64/clash-yaml') expect(result.servers.map((s) => s.name)).toEqual(['🇮🇷 ایران', '🇷🇺 Россия', 'v6']);
  });

  it('keeps line numbers of the decoded list for rejected entries of a base64 body', () => {
    const body = Buffer.from(['# header', LINKS[0], 'vless://nobody@x.example.com:0', '', LINKS[1]].join('\n')).toString('base64');
    const result = parseSubscription(body);
    expect(result.servers).toHaveLength(2);
    expect(result.rejected).toEqual([{ line: 3, reason: 'vless: port 0 out of range (1–65535)', excerpt: 'vless://***@x.example.com:0' }]);
  });

  it('an empty or blank body is "empty" with nothing rejected', () => {
    for (const body of ['', '   \r\n\t', Buffer.alloc(0)]) expect(parseSubscription(body)).toEqual({ format: 'empty', servers: [], rejected: [], notes: [] });
  });

  it('a list with only comments parses to no servers and no rejections', () => {
    expect(parseSubscription('# nothing here yet\n# come back later\n')).toMatchObject({ servers: [], rejected: [] });
  });

  const garbage: [string, string | Buffer, RegExp][] = [
    ['an HTML error page', '<!DOCTYPE html><html><body><h1>502 Bad Gateway</h1></body></html>', /HTML or XML page/],
    ['prose', 'Your subscription has expired. Please renew at the website.', /not a subscription/],
    ['binary noise', Buffer.from([0xff, 0xfe, 0x00, 0x9c, 0x81, 0x00, 0x13, 0x37, 0xc3, 0x28]), /binary data/],
    ['broken JSON', '{"outbounds": [ {"protocol": "vless", ', /not valid JSON/],
    ['JSON that is no config', '{"error": "token invalid"}', /JSON without outbounds/],
    ['base64 of prose', Buffer.from('hello there, nothing to see').toString('base64'), /not a subscription/],
  ];
  it.each(garbage)('a body of %s yields no servers and one rejection that says why', (_title, body, reason) => {
    const result = parseSubscription(body);
    expect(result.servers).toEqual([]);
    expect(result.rejected).toHaveLength(1);
    expect(result.rejected[0]).toMatchObject({ line: 1, reason: expect.stringMatching(reason) });
  });

  it('parses 10,000 links of mixed schemes, base64-wrapped, in well under a second', () => {
    const body = sampleSubscriptionBody(10_000);
    // The best of three runs: the machine is shared, and a run that waited for a CPU says
    // nothing about the parser. (The parse benchmark reports the real figures.)
    let best = Number.POSITIVE_INFINITY;
    let result = parseSubscription('');
    for (let run = 0; run < 3; run++) {
      const started = performance.now();
      result = parseSubscription(body);
      best = Math.min(best, performance.now() - started);
    }
    expect(result.format).toBe('base64');
    expect(result.servers).toHaveLength(10_000);
    expect(result.rejected).toEqual([]);
    expect(best).toBeLessThan(1000);
  });
});

describe('parseSubscription: SIP008 (Shadowsocks JSON subscriptions)', () => {
  // The example of the SIP008 specification (shadowsocks.org), addresses and secrets replaced.
  const SIP008 = {
    version: 1,
    servers: [
      { id: '27b8a625-4f4b-4428-9f0f-8a2317db7c79', remarks: '🇯🇵 Tokyo', server: 'example.com', server_port: 8388, password: 'example', method: 'chacha20-ietf-poly1305', plugin: 'v2ray-plugin', plugin_opts: 'tls;host=cdn.example.com' },
      { id: '7842c068-c667-41f2-8f7d-04feece3cb67', remarks: 'odd', server: '192.0.2.70', server_port: 8388, password: 'example', method: '114514' },
      { id: '5dba1e2a-9c8e-4a10-a1c2-1c7d8e1d9a11', remarks: 'Second', server: '192.0.2.71', server_port: 8389, password: 'example-2', method: 'aes-256-gcm' },
    ],
    bytes_used: 274877906944,
    bytes_remaining: 824633720832,
  };

  it('imports every server with its name, cipher and plugin; a bad entry is refused alone, saying why', () => {
    const result = parseSubscription(JSON.stringify(SIP008));
    expect(result.format).toBe('sip008-json');
    expect(result.servers).toEqual([
      expect.objectContaining({ name: '🇯🇵 Tokyo', protocol: 'shadowsocks', address: 'example.com', port: 8388, method: 'chacha20-ietf-poly1305', plugin: { name: 'v2ray-plugin', options: 'tls;host=cdn.example.com' } }),
      expect.objectContaining({ name: 'Second', address: '192.0.2.71', port: 8389, method: 'aes-256-gcm', password: 'example-2' }),
    ]);
    expect(result.rejected).toEqual([{ line: 2, reason: 'shadowsocks: unknown cipher "114514"', excerpt: expect.not.stringContaining('example') }]);
  });

  it('reads the bare list and its base64, as v2rayN does', () => {
    const bare = parseSubscription(JSON.stringify(SIP008.servers.slice(2)));
    expect(bare.format).toBe('sip008-json');
    expect(bare.servers.map((s) => s.name)).toEqual(['Second']);
    expect(parseSubscription(Buffer.from(JSON.stringify(SIP008)).toString('base64')).format).toBe('base64/sip008-json');
  });
});

describe('parseSubscription: links pasted inside text', () => {
  const post = [
    'ShadowProxy66, [12/1/2025 6:27 PM]',
    `Server 1: ${LINKS[0]}`,
    '🇷🇺',
    `👉 ${LINKS[1]} @ShadowProxy66`,
    'Fast: https://t.me/ShadowProxy66 — share!',
    `two on one line: ${LINKS[2]} and vless://@broken.example.com:443`,
  ].join('\n');

  it('finds every link in a channel post, with the line it was on; the prose around them is not reported', () => {
    const result = parseSubscription(post);
    expect(result.format).toBe('links-in-text');
    expect(result.servers.map((s) => s.address)).toEqual(['a.example.com', 'b.example.com', '2001:db8::7']);
    expect(result.rejected).toEqual([expect.objectContaining({ line: 6, reason: 'vless: missing UUID' })]);
  });

  it('text with only web addresses, or a scheme glued to a word, is still not a subscription', () => {
    const prose = parseSubscription('Read https://example.com/vless://guide and myvless://x.example.com:443 today');
    expect(prose.format).toBe('unknown');
    expect(prose.servers).toEqual([]);
  });
});

describe('parseSubscription: panel notices are not servers, in every format', () => {
  it('a Clash config whose only proxies are notices at 0.0.0.0 yields no server and says why for each', () => {
    const yaml = [
      'proxies:',
      '  - { name: "Subscription expired", type: vless, server: 0.0.0.0, port: 1, uuid: 00000000-0000-0000-0000-000000000000 }',
      '  - { name: "Renew at t.me/panel", type: trojan, server: 0.0.0.0, port: 1, password: x }',
    ].join('\n');
    const result = parseSubscription(yaml);
    expect(result.format).toBe('clash-yaml');
    expect(result.servers).toEqual([]);
    expect(result.rejected.map((r) => r.reason)).toEqual([
      expect.stringContaining('("Subscription expired")'),
      expect.stringContaining('("Renew at t.me/panel")'),
    ]);
  });

  it('in a list, the notice is reported and the real servers are kept', () => {
    const result = parseSubscription([`vless://${UUID}@0.0.0.0:1#${encodeURIComponent('⚠️ Limited')}`, ...LINKS].join('\n'));
    expect(result.servers).toHaveLength(LINKS.length);
    expect(result.rejected).toEqual([expect.objectContaining({ line: 1, reason: expect.stringContaining('("⚠️ Limited")') })]);
  });
});

describe("parseSubscription: the provider's STATUS / REMARKS lines are subscription info", () => {
  const STATUS = 'STATUS=🚀↑:1.2GB,↓:30GB,TOT:100GB💡Expires:2026-01-01';
  const GiB = 1024 ** 3;
  const usage = { upload: Math.round(1.2 * GiB), download: 30 * GiB, total: 100 * GiB, expire: Date.parse('2026-01-01T12:00:00Z') / 1000 };
  const names = ['🇮🇷 ایران', '🇷🇺 Россия', 'v6'];

  it.each([
    // V2Board / Xboard serve Shadowrocket exactly so: the STATUS line first, all of it base64.
    ['base64, as V2Board serves Shadowrocket', Buffer.from([STATUS, 'REMARKS=My Provider', ...LINKS].join('\r\n')).toString('base64'), 'base64'],
    ['plain lines', [STATUS, 'REMARKS=My Provider', ...LINKS].join('\n'), 'links'],
    ['each line base64 on its own', [STATUS, 'REMARKS=My Provider', ...LINKS].map((l) => Buffer.from(l).toString('base64')).join('\n'), 'base64'],
  ])('%s: the servers, no problem, and the usage and name', (_title, body, format) => {
    const result = parseSubscription(body);
    expect(result.format).toBe(format);
    expect(result.rejected).toEqual([]);
    expect(result.notes).toEqual([]);
    expect(result.servers.map((s) => s.name)).toEqual(names);
    expect(result.info).toEqual({ usage, remarks: 'My Provider' });
  });

  it('an unreadable STATUS line is a note at its line, never a rejected entry', () => {
    const result = parseSubscription(['STATUS=✨ welcome ✨', ...LINKS].join('\n'));
    expect(result.servers.map((s) => s.name)).toEqual(names);
    expect(result.rejected).toEqual([]);
    expect(result.notes).toEqual([expect.objectContaining({ line: 1, note: expect.stringContaining('STATUS line') })]);
    expect(result.info).toEqual({});
  });

  it('a body of only a STATUS line (an expired account) is an empty list with its usage, not "not a subscription"', () => {
    for (const body of ['STATUS=🚀↑:10GB,↓:90GB,TOT:100GB💡Expires:2025-01-01', Buffer.from('STATUS=🚀↑:10GB,↓:90GB,TOT:100GB💡Expires:2025-01-01\r\n').toString('base64')]) {
      const result = parseSubscription(body);
      expect(result.servers).toEqual([]);
      expect(result.rejected).toEqual([]);
      expect(result.info?.usage).toEqual({ upload: 10 * GiB, download: 90 * GiB, total: 100 * GiB, expire: Date.parse('2025-01-01T12:00:00Z') / 1000 });
    }
  });

  it('a body without info lines has no info', () => {
    expect(parseSubscription(LIST).info).toBeUndefined();
  });
});

describe('parseSubscription never throws', () => {
  const checkShape = (result: ReturnType<typeof parseSubscription>) => {
    expect(typeof result.format).toBe('string');
    for (const server of result.servers) {
      expect(PROTOCOLS).toContain(server.protocol);
      expect(server.port).toBeGreaterThanOrEqual(1);
      expect(server.port).toBeLessThanOrEqual(65535);
      expect(server.address.length).toBeGreaterThan(0);
      expect(server.address).not.toMatch(/^\[/);
    }
    for (const entry of result.rejected) {
      expect(entry.line).toBeGreaterThanOrEqual(1);
      expect(entry.reason.length).toBeGreaterThan(0);
    }
  };

  it('on arbitrary strings', () => {
    fc.assert(fc.property(fc.string({ unit: 'binary', maxLength: 400 }), (text) => checkShape(parseSubscription(text))), { numRuns: 400 });
  });

  it('on arbitrary bytes', () => {
    fc.assert(fc.property(fc.uint8Array({ maxLength: 400 }), (bytes) => checkShape(parseSubscription(bytes))), { numRuns: 400 });
  });

  const seeds = [
    ...sampleLinks(20, 7),
    `wireguard://${encodeURIComponent('AN0uPeVcrocvIXzzOfHKS+GOWYIK4+ryYpzqA+ExEWs=')}@1.2.3.4:2408?publickey=${encodeURIComponent('bmXOC+F1FxEMF9dyiK2H5/1SUtzH0JuVo51h2wPfgyo=')}&address=10.0.0.2`,
    `socks://${Buffer.from('u:p').toString('base64')}@127.0.0.1:1080#s`,
    `vmess://${Buffer.from(`auto:${UUID}@sr.example.com:443`).toString('base64')}?remarks=x&obfs=websocket&tls=1`,
    `{"outbounds":[{"protocol":"vless","settings":{"vnext":[{"address":"x.com","port":1,"users":[{"id":"${UUID}"}]}]}}]}`,
    'proxies:\n  - {name: t, type: trojan, server: t.example.com, port: 443, password: pw, dialer-proxy: t}\n',
  ];
  const mutation = fc.record({
    seed: fc.constantFrom(...seeds),
    edits: fc.array(fc.tuple(fc.nat(), fc.nat(4), fc.string({ unit: 'binary', maxLength: 3 })), { maxLength: 6 }),
    wrapBase64: fc.boolean(),
  });

  it('on mutated valid links and configs (inserted, deleted and replaced characters)', () => {
    fc.assert(
      fc.property(mutation, ({ seed, edits, wrapBase64 }) => {
        let text = seed;
        for (const [at, deleteCount, insert] of edits) {
          const i = at % (text.length + 1);
          text = text.slice(0, i) + insert + text.slice(i + deleteCount);
        }
        checkShape(parseSubscription(wrapBase64 ? Buffer.from(text).toString('base64') : text));
      }),
      { numRuns: 600 },
    );
  });
});
