import { describe, expect, it } from 'vitest';
import type { Server } from '../../shared/domain/server';
import { antiDpiSettingsSchema } from '../../shared/settings';
import { antiDpiAbilities, type AntiDpiOptions, antiDpiFor, antiDpiUnavailable } from './anti-dpi';
import { fragmentApplied } from './probe-anti-dpi';
import { profileFromTable } from './testing/profile';
import { proberConfig } from './prober-config';
import { sampleServer } from './samples';
import { tunnelConfig } from './tunnel-config';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
const xray25 = profileFromTable('xray', '25.3.6');
const xray18 = profileFromTable('xray', '1.8.16');
const v2ray434 = profileFromTable('v2ray', '4.34.0');
const base = { listen: '127.0.0.1', httpPort: 10809, socksPort: 10808, apiPort: 10085 };
const FRAGMENT = { packets: 'tlshello', length: '100-200', interval: '10-20' };
const NOISE = { type: 'rand', packet: '10-20', delay: '10-16' } as const;
const both: AntiDpiOptions = { fragment: FRAGMENT, noise: NOISE };
const tagged = (config: Json, tag: string) => (config.outbounds as Json[]).find((o) => o.tag === tag);

describe('Xray anti-DPI options in the generated config', () => {
  it('writes a freedom outbound with fragment and noises, and the server dials through it', () => {
    const config = tunnelConfig({ ...base, server: sampleServer('vless', 'ws'), core: xray25, antiDpi: both }) as Json;
    expect(tagged(config, 'anti-dpi')).toEqual({
      tag: 'anti-dpi',
      protocol: 'freedom',
      settings: { fragment: { packets: 'tlshello', length: '100-200', interval: '10-20' }, noises: [{ type: 'rand', packet: '10-20', delay: '10-16' }] },
    });
    expect(tagged(config, 'proxy')!.streamSettings).toMatchObject({ network: 'ws', sockopt: { dialerProxy: 'anti-dpi' } });
  });

  it('writes only what is on: fragment alone has no noises', () => {
    const config = tunnelConfig({ ...base, server: sampleServer('vmess'), core: xray25, antiDpi: { fragment: FRAGMENT, noise: null } }) as Json;
    expect(tagged(config, 'anti-dpi')!.settings).toEqual({ fragment: FRAGMENT });
  });

  it('for a chained server, the first hop (the connection the network sees) dials through it', () => {
    const via: Server = { ...sampleServer('trojan'), id: 'up', name: 'up' };
    const server: Server = { ...sampleServer('vmess'), via: 'up' };
    const config = tunnelConfig({ ...base, server, via, core: xray25, antiDpi: both }) as Json;
    expect(tagged(config, 'proxy')!.streamSettings.sockopt).toEqual({ dialerProxy: 'proxy-via' });
    expect(tagged(config, 'proxy-via')!.streamSettings.sockopt).toEqual({ dialerProxy: 'anti-dpi' });
  });

  it('writes nothing for a Hysteria2 server that hops ports (Xray hops only from the outermost dialer), in the tunnel and the prober, and says why', () => {
    const xray26 = profileFromTable('xray', '26.3.27');
    const hopping: Server = { ...sampleServer('hysteria2', 'tcp', { portHopping: '443,20000-30000' } as Partial<Server>), name: 'HY hop' };
    const tunnel = tunnelConfig({ ...base, server: hopping, core: xray26, antiDpi: both }) as Json;
    const prober = proberConfig({ entries: [{ server: hopping, port: 20001, antiDpi: both }], core: xray26, listen: '127.0.0.1' }) as Json;
    for (const config of [tunnel, prober]) expect(JSON.stringify(config)).not.toContain('dialerProxy');
    expect(antiDpiUnavailable(both, xray26, hopping)).toBe('Xray 26.3.27 cannot hop the ports of a Hysteria2 server (HY hop) through the anti-DPI options');
    // The same server on one port keeps them; a server chained behind a hopping one does not, since
    // its first hop is the hopping one.
    const single = sampleServer('hysteria2');
    expect(JSON.stringify(tunnelConfig({ ...base, server: single, core: xray26, antiDpi: both }))).toContain('"dialerProxy":"anti-dpi"');
    const chained: Server = { ...sampleServer('vmess'), via: hopping.id };
    expect(JSON.stringify(tunnelConfig({ ...base, server: chained, via: hopping, core: xray26, antiDpi: both }))).not.toContain('anti-dpi');
    expect(antiDpiUnavailable(both, xray26, single)).toBeNull();
  });

  it('writes nothing without options, or for a core that lacks them, and says why', () => {
    for (const config of [
      tunnelConfig({ ...base, server: sampleServer('vmess'), core: xray25 }) as Json,
      tunnelConfig({ ...base, server: sampleServer('vmess'), core: xray25, antiDpi: { fragment: null, noise: null } }) as Json,
      tunnelConfig({ ...base, server: sampleServer('vmess'), core: v2ray434, antiDpi: both }) as Json,
      tunnelConfig({ ...base, server: sampleServer('vmess'), core: xray18, antiDpi: { fragment: null, noise: NOISE } }) as Json,
    ]) {
      expect(tagged(config, 'anti-dpi')).toBeUndefined();
      expect(JSON.stringify(config)).not.toContain('dialerProxy');
    }
    expect(antiDpiUnavailable(both, v2ray434)).toBe('TLS ClientHello fragment is not available with v2ray 4.34.0 (it needs Xray)');
    expect(antiDpiUnavailable(both, xray18)).toBe('UDP noise is not available with Xray 1.8.16 (it needs a recent Xray)');
    expect(antiDpiUnavailable({ fragment: FRAGMENT, noise: null }, xray18)).toBeNull();
    expect(antiDpiUnavailable(both, xray25)).toBeNull();
  });

  it('writes the part the core has: an Xray without noises still splits the ClientHello, in the tunnel and the prober', () => {
    const tunnel = tunnelConfig({ ...base, server: sampleServer('vmess'), core: xray18, antiDpi: both }) as Json;
    expect(tagged(tunnel, 'anti-dpi')!.settings).toEqual({ fragment: FRAGMENT });
    expect(tagged(tunnel, 'proxy')!.streamSettings.sockopt).toEqual({ dialerProxy: 'anti-dpi' });
    const prober = proberConfig({ entries: [{ server: sampleServer('vmess'), port: 41000, antiDpi: both }], core: xray18, listen: '127.0.0.1' }) as Json;
    expect(tagged(prober, 'probe-0-anti-dpi')!.settings).toEqual({ fragment: FRAGMENT });
    expect(fragmentApplied(antiDpiFor(antiDpiSettingsSchema.parse({ servers: { a: 'on' } }), 'a'), sampleServer('vmess'), undefined, xray18, [])).toBe(true);
  });

  it('the prober writes each server’s own options, so its tests measure the tunnel’s path', () => {
    const a = { ...sampleServer('vmess'), id: 'a' };
    const b = { ...sampleServer('vless'), id: 'b' };
    const config = proberConfig({ entries: [{ server: a, port: 41000, antiDpi: both }, { server: b, port: 41001 }], core: xray25, listen: '127.0.0.1' }) as Json;
    expect(tagged(config, 'probe-0')!.streamSettings.sockopt).toEqual({ dialerProxy: 'probe-0-anti-dpi' });
    expect(tagged(config, 'probe-0-anti-dpi')).toMatchObject({ protocol: 'freedom', settings: { fragment: FRAGMENT } });
    expect(tagged(config, 'probe-1')!.streamSettings?.sockopt).toBeUndefined();
    expect(tagged(config, 'probe-1-anti-dpi')).toBeUndefined();
  });
});

describe('which servers get the anti-DPI options (a global setting with per-server overrides)', () => {
  const settings = (patch: Record<string, unknown> = {}) => antiDpiSettingsSchema.parse(patch);
  it.each([
    ['off everywhere by default', settings(), 'a', null],
    ['fragment on globally', settings({ fragment: { enabled: true, packets: '1-3', length: '50-100', interval: '5' } }), 'a', { fragment: { packets: '1-3', length: '50-100', interval: '5' }, noise: null }],
    ['a server turned off keeps none', settings({ fragment: { enabled: true, packets: 'tlshello', length: '100-200', interval: '10-20' }, servers: { a: 'off' } }), 'a', null],
    ['a server turned on gets both as configured', settings({ servers: { a: 'on' } }), 'a', { fragment: FRAGMENT, noise: NOISE }],
    ['another server is not affected by an override', settings({ servers: { a: 'on' } }), 'b', null],
    [
      'a server with values of its own gets those it enables, whatever the global switches say',
      settings({
        fragment: { enabled: true, packets: 'tlshello', length: '100-200', interval: '10-20' },
        noise: { enabled: true, type: 'rand', packet: '10-20', delay: '10-16' },
        servers: { a: { fragment: { enabled: true, packets: '1-3', length: '5-10', interval: '1-2' }, noise: { enabled: false, type: 'str', packet: 'hello', delay: '5' } } },
      }),
      'a',
      { fragment: { packets: '1-3', length: '5-10', interval: '1-2' }, noise: null },
    ],
    [
      'values of its own with both off leave the server without any',
      settings({ fragment: { enabled: true, packets: 'tlshello', length: '100-200', interval: '10-20' }, servers: { a: { fragment: { ...FRAGMENT, enabled: false }, noise: { ...NOISE, enabled: false } } } }),
      'a',
      null,
    ],
  ] as const)('%s', (_name, s, id, expected) => {
    expect(antiDpiFor(s, id)).toEqual(expected);
  });


  it('refuses values Xray would not read, with the field named', () => {
    const bad = antiDpiSettingsSchema.safeParse({ fragment: { enabled: true, packets: 'all', length: '100-200', interval: '10-20' } });
    expect(bad.success).toBe(false);
    expect(bad.error?.issues[0]?.path).toEqual(['fragment', 'packets']);
    expect(antiDpiSettingsSchema.safeParse({ noise: { enabled: true, type: 'rand', packet: '10-20', delay: 'soon' } }).success).toBe(false);
    // What a noise packet may be depends on its type.
    const packetIssue = (type: string, packet: string) => antiDpiSettingsSchema.safeParse({ noise: { enabled: true, type, packet, delay: '10' } }).error?.issues[0];
    expect(packetIssue('rand', 'hello')).toMatchObject({ path: ['noise', 'packet'], message: 'must be a length or a range like 10-20' });
    expect(packetIssue('base64', 'not base64!')).toMatchObject({ path: ['noise', 'packet'], message: 'must be base64' });
    expect(packetIssue('str', 'hello')).toBeUndefined();
    expect(packetIssue('base64', 'aGVsbG8=')).toBeUndefined();
  });

  it('says which options a core can write: neither for v2ray 4.34, fragment alone for an Xray without noises', () => {
    expect(antiDpiAbilities(v2ray434)).toEqual({ fragment: false, noise: false });
    expect(antiDpiAbilities(xray18)).toEqual({ fragment: true, noise: false });
    expect(antiDpiAbilities(xray25)).toEqual({ fragment: true, noise: true });
  });
});
