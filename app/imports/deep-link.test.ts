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

  const UNREADABLE: [string, string, RegExp][] = [
    ['an app this one is not', `foxray://yiguo.dev/sub/add/?url=${enc(SUB)}`, /^not an import link this app knows$/],
    ['an action it does not know', `hiddify://connect?url=${enc(SUB)}`, /^"hiddify:\/\/connect" is not an import link/],
    ['no url=', `v2rayn://install-sub?name=x`, /without a url= to add$/],
    ['a file address', `clash://install-config?url=${enc('file:///etc/passwd')}`, /fetched over http\(s\), not file:$/],
    ['javascript', `clash://install-config?url=${enc('javascript:alert(1)')}`, /not javascript:$/],
    ['credentials in the address', `v2rayn://install-sub?url=${enc('https://u:p@panel.example.com/sub')}`, /user name and password/],
    ['escapes that are not UTF-8', `v2rayn://install-sub?url=${enc(SUB)}&name=%FF`, /percent-escapes are not UTF-8/],
    ['not an address at all', `hiddify://import/just words`, /neither a subscription address nor a share link/],
    ['too long', `v2rayn://install-sub?url=${enc(`https://a.example.com/${'x'.repeat(20_000)}`)}`, /longer than 16384 characters/],
  ];
  it.each(UNREADABLE)('unreadable: %s', (_title, link, reason) => {
    const parsed = parseDeepLink(link);
    expect(parsed.target.kind).toBe('unreadable');
    expect(parsed.target.kind === 'unreadable' && parsed.target.reason).toMatch(reason);
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
