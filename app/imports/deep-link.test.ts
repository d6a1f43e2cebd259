import { describe, expect, it } from 'vitest';
import { isDeepLink, parseDeepLink, readImportText } from './deep-link';

const SUB = 'https://panel.example.com/sub/8f14e45fceea167a?format=base64&x=1';
const enc = encodeURIComponent;
const VLESS = 'vless://a7e505a9-d63f-48ac-92f3-85ebcd7d7018@v.example.com:443?security=tls&type=ws#DE%201';

const SUBSCRIPTIONS: [string, string, string | null][] = [
  [`v2rayn://install-sub?url=${enc(SUB)}&name=${enc('🇩🇪 My VPN')}`, SUB, '🇩🇪 My VPN'],
  [`v2rayng://install-sub?name=${enc('Провайдер')}&url=${enc(SUB)}`, SUB, 'Провайдер'],
  [`v2rayng://install-config?url=${enc(SUB)}`, SUB, null],
  [`hiddify://import/${SUB}#${enc('سرور من')}`, SUB, 'سرور من'],
  [`hiddify://import/${enc(SUB)}`, SUB, null],
  [`hiddify://install-config?url=${enc(SUB)}#Work`, SUB, 'Work'],
  [`hiddify://install-config/?url=${enc(SUB)}#Work`, SUB, 'Work'],
  [`hiddify://install-sub?url=${enc(SUB)}#Home`, SUB, 'Home'],
  [`clash://install-config?url=${enc(SUB)}&name=Clash%20sub`, SUB, 'Clash sub'],
  [`clashmeta://install-config?url=${enc(SUB)}&name=Meta`, SUB, 'Meta'],
  [`sing-box://import-remote-profile?url=${enc(SUB)}#${enc('sing box')}`, SUB, 'sing box'],
  [`steadfast://install-sub?url=${enc(SUB)}&name=Ours`, SUB, 'Ours'],
  // Some panels do not encode the address: its own & and = stay part of it, a trailing name is still read.
  [`clash://install-config?url=${SUB}&name=Raw`, SUB, 'Raw'],
  [`v2rayn://install-sub?url=${SUB}`, SUB, null],
  // Form-encoded names: + is a space.
  [`v2rayn://install-sub?url=${enc(SUB)}&name=My+VPN`, SUB, 'My VPN'],
];

describe('deep links: what they would add', () => {
  it.each(SUBSCRIPTIONS)('%s', (link, url, name) => {
    expect(parseDeepLink(link)).toEqual({ source: link.slice(0, link.indexOf(':')), name, target: { kind: 'subscription', url } });
  });

  it('a Hiddify import of a share link adds that server, its credentials masked for the confirmation', () => {
    const parsed = parseDeepLink(`hiddify://import/${VLESS}`);
    expect(parsed).toMatchObject({ source: 'hiddify', name: 'DE 1', target: { kind: 'links', text: VLESS } });
    expect(parsed.target.kind === 'links' && parsed.target.excerpt).not.toContain('a7e505a9');
    expect(parseDeepLink(`hiddify://install-proxy?url=${enc(VLESS)}`).target).toMatchObject({ kind: 'links', text: VLESS });
  });

  // Each reason in English (the log's) and as the topic the window words in the user's language.
  const UNREADABLE: [string, string, RegExp, string][] = [
    ['an app this one is not', `foxray://yiguo.dev/sub/add/?url=${enc(SUB)}`, /^not an import link this app knows$/, 'import-unknown-link'],
    ['an action it does not know', `hiddify://connect?url=${enc(SUB)}`, /^"hiddify:\/\/connect" is not an import link/, 'import-unknown-link'],
    ['no url=', `v2rayn://install-sub?name=x`, /without a url= to add$/, 'import-link-without-url'],
    ['a file address', `clash://install-config?url=${enc('file:///etc/passwd')}`, /fetched over http\(s\), not file:$/, 'import-not-http'],
    ['javascript', `clash://install-config?url=${enc('javascript:alert(1)')}`, /not javascript:$/, 'import-not-http'],
    ['credentials in the address', `v2rayn://install-sub?url=${enc('https://u:p@panel.example.com/sub')}`, /user name and password/, 'import-address-with-password'],
    ['escapes that are not UTF-8', `v2rayn://install-sub?url=${enc(SUB)}&name=%FF`, /percent-escapes are not UTF-8/, 'import-bad-escapes'],
    ['not an address at all', `hiddify://import/just words`, /neither a subscription address nor a share link/, 'import-neither-address-nor-link'],
    ['too long', `v2rayn://install-sub?url=${enc(`https://a.example.com/${'x'.repeat(20_000)}`)}`, /longer than 16384 characters/, 'import-link-too-long'],
  ];
  it.each(UNREADABLE)('unreadable: %s', (_title, link, reason, topic) => {
    const parsed = parseDeepLink(link);
    expect(parsed.target.kind).toBe('unreadable');
    expect(parsed.target.kind === 'unreadable' && parsed.target.reason).toMatch(reason);
    expect(parsed.target.kind === 'unreadable' && parsed.target.problem?.topic).toBe(topic);
  });

  it('tells the links it registers for from other command-line arguments', () => {
    expect(isDeepLink(`hiddify://import/${SUB}`)).toBe(true);
    expect(isDeepLink(`SING-BOX://import-remote-profile?url=x`)).toBe(true);
    expect(isDeepLink('--no-sandbox')).toBe(false);
    expect(isDeepLink('https://example.com')).toBe(false);
    expect(isDeepLink('/usr/bin/steadfast-vpn')).toBe(false);
  });

  it('reads what a QR code holds: a share link, several, a subscription address or an import link', () => {
    expect(readImportText(VLESS, 'qr')).toMatchObject({ source: 'qr', target: { kind: 'links', text: VLESS } });
    expect(readImportText(`${VLESS}\n\n${VLESS}\n`, 'qr').target).toMatchObject({ kind: 'links', text: `${VLESS}\n${VLESS}` });
    expect(readImportText(SUB, 'qr')).toEqual({ source: 'qr', name: null, target: { kind: 'subscription', url: SUB } });
    expect(readImportText(`hiddify://import/${SUB}#Mine`, 'qr')).toEqual({ source: 'qr', name: 'Mine', target: { kind: 'subscription', url: SUB } });
    expect(readImportText('WIFI:S:home;T:WPA;P:secret;;', 'qr').target).toMatchObject({ kind: 'unreadable', reason: expect.stringMatching(/neither a share link/) });
  });
});

const TROJAN = 'trojan://s3cret-pass@t.example.com:443?security=tls&sni=t.example.com#JP%201';
const SS = 'ss://YWVzLTI1Ni1nY206cGFzc3dvcmQ@s.example.com:8388#SG';
const XRAY_JSON = JSON.stringify({
  remarks: 'From JSON',
  outbounds: [{ protocol: 'trojan', tag: 'proxy', settings: { servers: [{ address: 't.example.com', port: 443, password: 'pw-json-1' }] }, streamSettings: { security: 'tls' } }],
});
const CLASH_YAML = ['proxies:', '  - name: "🇩🇪 Berlin"', '    type: trojan', '    server: t.example.com', '    port: 443', '    password: pw-yaml-1', ''].join('\n');
const b64 = (text: string) => Buffer.from(text).toString('base64');

/** Everything a user may paste into the one import box, and what each becomes before they confirm. */
const PASTED: [string, string, { kind: string; url?: string; format?: string; servers?: number; text?: string }, string | null][] = [
  ['a subscription address', `  ${SUB}  `, { kind: 'subscription', url: SUB }, null],
  ['one share link', VLESS, { kind: 'links', text: VLESS }, null],
  ['several share links with blank lines', `${VLESS}\r\n\r\n${TROJAN}\n${SS}\n`, { kind: 'links', text: `${VLESS}\n${TROJAN}\n${SS}` }, null],
  ['a v2rayN install-sub link', `v2rayn://install-sub?url=${enc(SUB)}&name=Mine`, { kind: 'subscription', url: SUB }, 'Mine'],
  ['a Hiddify import of a subscription', `hiddify://import/${SUB}#Home`, { kind: 'subscription', url: SUB }, 'Home'],
  ['a Clash install-config link', `clash://install-config?url=${enc(SUB)}`, { kind: 'subscription', url: SUB }, null],
  ['a sing-box remote profile', `sing-box://import-remote-profile?url=${enc(SUB)}#sb`, { kind: 'subscription', url: SUB }, 'sb'],
  ['a steadfast link', `steadfast://install-sub?url=${enc(SUB)}&name=Ours`, { kind: 'subscription', url: SUB }, 'Ours'],
  ['a base64 body', b64(`${VLESS}\n${TROJAN}`), { kind: 'body', format: 'base64', servers: 2 }, null],
  ['an Xray JSON body', XRAY_JSON, { kind: 'body', format: 'xray-json', servers: 1 }, null],
  ['a Clash YAML body', CLASH_YAML, { kind: 'body', format: 'clash-yaml', servers: 1 }, null],
  ['a body with its REMARKS line', `REMARKS=Friend’s servers\n${VLESS}`, { kind: 'body', format: 'links', servers: 1 }, 'Friend’s servers'],
  ['links inside a channel post', `Today's servers: ${TROJAN} — fast\nenjoy`, { kind: 'body', format: 'links-in-text', servers: 1 }, null],
];

describe('the import box: what pasted text would add', () => {
  it.each(PASTED)('%s', (_title, text, target, name) => {
    const read = readImportText(text, 'paste');
    expect(read).toMatchObject({ source: 'paste', name, target });
  });

  it('a body is shown masked: no password of it reaches the confirmation', () => {
    for (const body of [XRAY_JSON, CLASH_YAML, b64(TROJAN)]) {
      const read = readImportText(body, 'paste');
      expect(read.target.kind).toBe('body');
      expect(read.target.kind === 'body' && read.target.excerpt).not.toMatch(/pw-json-1|pw-yaml-1|s3cret-pass/);
    }
  });

  const NOTHING: [string, string, RegExp, RegExp][] = [
    ['blank', '  \n ', /nothing in it/, /^import-empty$/],
    ['prose', 'hello, please send me a VPN', /neither a share link, a subscription address, an import link nor a subscription’s contents/, /^import-nothing-recognised$/],
    ['a link of an app it does not know', `foxray://yiguo.dev/sub/add/?url=${enc(SUB)}`, /no usable server \(unknown scheme foxray:\/\/\)/, /^import-no-usable-server$/],
    ['a broken import link', 'v2rayn://install-sub?name=x', /without a url= to add/, /^import-link-without-url$/],
    ['a file address', 'file:///etc/passwd', /unknown scheme file:/, /^import-no-usable-server$/],
    ['JSON that is not a config', '{"hello": "world"}', /no usable server|neither/, /^import-(no-usable-server|nothing-recognised)$/],
  ];
  it.each(NOTHING)('says why it adds nothing: %s', (_title, text, reason, topic) => {
    const read = readImportText(text, 'paste');
    expect(read.target.kind).toBe('unreadable');
    expect(read.target.kind === 'unreadable' && read.target.reason).toMatch(reason);
    expect(read.target.kind === 'unreadable' && read.target.problem?.topic).toMatch(topic);
  });
});

