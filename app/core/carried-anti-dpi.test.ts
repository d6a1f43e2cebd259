import { describe, expect, it } from 'vitest';
import { reachedOverUdp, type Server } from '../../shared/domain/server';
import { antiDpiSettingsSchema } from '../../shared/settings';
import { antiDpiFor, type AntiDpiOptions } from './anti-dpi';
import { carriedAntiDpi } from './carried-anti-dpi';
import { sampleServer } from './samples';
import { singBoxCarrierConfig } from './sing-box/config';
import { profileFromTable, SING_BOX_HERE_TAGS } from './testing/profile';
import { tunnelConfig, userInboundTags } from './tunnel-config';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const xray = profileFromTable('xray', '26.3.27');
const xray18 = profileFromTable('xray', '1.8.16');
const v2ray = profileFromTable('v2ray', '4.34.0');
const singBox = profileFromTable('sing-box', '1.14.1', '/opt/sing-box', SING_BOX_HERE_TAGS);
const FRAGMENT = { packets: 'tlshello', length: '100-200', interval: '10-20' };
const NOISE = { type: 'rand', packet: '10-20', delay: '10-16' } as const;
const both: AntiDpiOptions = { fragment: FRAGMENT, noise: NOISE };
const named = (protocol: Server['protocol'], name: string, extra: Partial<Server> = {}) => ({ ...sampleServer(protocol, 'tcp', extra), id: name, name }) as Server;
const anytls = named('anytls', 'AT');
const tuic = named('tuic', 'TU');
const hysteria = named('hysteria', 'HY1');
const shadowTls = named('shadowsocks', 'STLS', { plugin: { name: 'shadow-tls', options: 'host=www.apple.com;password=p;version=3' } } as Partial<Server>);
const shadowTlsV2 = named('shadowsocks', 'STLS2', { plugin: { name: 'shadow-tls', options: 'host=www.apple.com;password=p;version=2' } } as Partial<Server>);
const RAW = { packets: '1-1', length: '100-200', interval: '10-20' };
const hopping = named('hysteria2', 'HY hop', { portHopping: '20000-20010' } as Partial<Server>);

describe('which anti-DPI options reach a server sing-box carries (applied by the main core)', () => {
  it.each<[string, AntiDpiOptions | null, typeof xray, Server, AntiDpiOptions | null, boolean, RegExp[]]>([
    ['AnyTLS (TCP): the fragment; noise said not to apply', both, xray, anytls, { fragment: FRAGMENT, noise: null }, false, [/UDP noise does not apply to AnyTLS \(AT\): it runs over TCP/]],
    ['ShadowTLS v3 with a packet range: the fragment, nothing to say', { fragment: RAW, noise: null }, xray, shadowTls, { fragment: RAW, noise: null }, false, []],
    ['ShadowTLS v3 with "tlshello": left out, it would break the server’s check; a packet range is suggested', { fragment: FRAGMENT, noise: null }, xray, shadowTls, null, false, [/"tlshello"\) would break ShadowTLS v3 \(STLS\).*packet range such as 1-1/]],
    ['ShadowTLS v2 reads no ClientHello of its own: "tlshello" is written', { fragment: FRAGMENT, noise: null }, xray, shadowTlsV2, { fragment: FRAGMENT, noise: null }, false, []],
    ['TUIC (QUIC): the noise over UDP; the fragment said not to apply', both, xray, tuic, { fragment: null, noise: NOISE }, true, [/TLS ClientHello fragment does not apply to TUIC \(TU\): it runs over UDP, and Xray 26\.3\.27 cannot cut a handshake inside QUIC/]],
    ['Hysteria v1 with the fragment alone: nothing applies, and it is said', { fragment: FRAGMENT, noise: null }, xray, hysteria, null, true, [/fragment does not apply to Hysteria \(v1\)/]],
    ['no options: nothing written, nothing said', null, xray, anytls, null, false, []],
    ['v2ray as the main core: nothing, with its reason', both, v2ray, anytls, null, false, [/TLS ClientHello fragment is not available with v2ray 4\.34\.0 \(it needs Xray\)/]],
    ['Xray 1.8 without noise: the fragment for TCP', both, xray18, anytls, { fragment: FRAGMENT, noise: null }, false, [/UDP noise is not available with Xray 1\.8\.16/]],
    ['a Hysteria2 server that hops ports: nothing, with why', both, xray, hopping, null, true, [/cannot hop the ports of a Hysteria2 server \(HY hop\)/]],
  ])('%s', (_name, options, main, firstHop, written, udp, notes) => {
    const result = carriedAntiDpi(options, main, firstHop);
    expect(result.written).toEqual(written);
    expect(result.udp).toBe(udp);
    expect(result.notApplied).toHaveLength(notes.length);
    notes.forEach((note, i) => expect(result.notApplied[i]).toMatch(note));
  });

  it('the kinds reached over UDP are the QUIC ones and WireGuard (NaiveProxy only with QUIC)', () => {
    const udp = (['tuic', 'hysteria', 'hysteria2', 'wireguard'] as const).map((p) => reachedOverUdp(sampleServer(p)));
    expect(udp).toEqual([true, true, true, true]);
    const tcp = (['anytls', 'vless', 'trojan', 'shadowsocks', 'naive'] as const).map((p) => reachedOverUdp(sampleServer(p)));
    expect(tcp).toEqual([false, false, false, false, false]);
    expect(reachedOverUdp(sampleServer('naive', 'tcp', { quic: true } as Partial<Server>))).toBe(true);
  });

  it('a per-server override reaches only that server: one set to off is dialled as before', () => {
    const settings = antiDpiSettingsSchema.parse({ fragment: { enabled: true, ...FRAGMENT }, servers: { quiet: 'off' } });
    expect(carriedAntiDpi(antiDpiFor(settings, 'AT'), xray, anytls).written).toEqual({ fragment: FRAGMENT, noise: null });
    expect(carriedAntiDpi(antiDpiFor(settings, 'quiet'), xray, { ...anytls, id: 'quiet' }).written).toBeNull();
  });
});

describe('the two cores’ configs for a carried server with anti-DPI options', () => {
  const base = { listen: '127.0.0.1', httpPort: 10809, socksPort: 10808, apiPort: 10085, core: xray };
  const hop: Server = { id: 'AT', subscriptionId: 's', name: 'AT', protocol: 'socks', address: '127.0.0.1', port: 20800, transport: { network: 'tcp' }, security: { type: 'none' } };
  const transparent = { port: 10850, directPort: 10851, method: 'tproxy', mark: 255 } as const;
  const main = (antiDpi: AntiDpiOptions | null, udp: boolean, extra: Record<string, unknown> = {}) =>
    tunnelConfig({ ...base, server: hop, antiDpi, ...(antiDpi ? { antiDpiInbound: { port: 20900, udp } } : {}), ...extra }) as Json;
  const tagged = (config: Json, tag: string) => (config.outbounds as Json[]).find((o) => o.tag === tag);

  it('Xray: a loopback SOCKS5 inbound (TCP only for a TCP server), routed first to the anti-DPI freedom; the hop to the carrier is not cut', () => {
    const config = main({ fragment: FRAGMENT, noise: null }, false);
    expect(config.inbounds.at(-1)).toEqual({ tag: 'anti-dpi-in', listen: '127.0.0.1', port: 20900, protocol: 'socks', settings: { auth: 'noauth', udp: false } });
    expect(config.routing.rules[0]).toEqual({ type: 'field', inboundTag: ['anti-dpi-in'], outboundTag: 'anti-dpi' });
    expect(tagged(config, 'anti-dpi')).toEqual({ tag: 'anti-dpi', protocol: 'freedom', settings: { fragment: FRAGMENT } });
    expect(tagged(config, 'proxy')!.streamSettings?.sockopt?.dialerProxy).toBeUndefined();
  });

  it('Xray: UDP on the inbound for a QUIC server, its replies on loopback', () => {
    const config = main({ fragment: null, noise: NOISE }, true);
    expect(config.inbounds.at(-1).settings).toEqual({ auth: 'noauth', udp: true, ip: '127.0.0.1' });
    expect(tagged(config, 'anti-dpi')!.settings).toEqual({ noises: [NOISE] });
  });

  it('the inbound is not the user’s: Auto’s counters read every inbound but it and the API', () => {
    const config = main(both, true);
    const tags = (config.inbounds as Json[]).map((i) => i.tag as string);
    const user = userInboundTags({});
    expect(tags.filter((t) => !user.includes(t))).toEqual(['api', 'anti-dpi-in']);
    const captured = main(both, true, { transparent });
    const capturedUser = userInboundTags({ transparent: true });
    expect((captured.inbounds as Json[]).map((i) => i.tag).filter((t: string) => !capturedUser.includes(t))).toEqual(['api', 'direct-in', 'anti-dpi-in']);
  });

  it('system-wide: the freedom that leaves for the server carries the mark, so the capture lets it pass', () => {
    const config = main(both, false, { transparent });
    expect(tagged(config, 'anti-dpi')!.streamSettings.sockopt.mark).toBe(255);
  });

  it('the inbound port is one of the config’s own: a clash is refused', () => {
    expect(() => tunnelConfig({ ...base, server: hop, antiDpi: both, antiDpiInbound: { port: base.apiPort, udp: false } })).toThrow(/used twice/);
  });

  it('without options neither core changes', () => {
    expect(main(null, false)).toEqual(tunnelConfig({ ...base, server: hop }));
    expect(JSON.stringify(singBoxCarrierConfig({ server: anytls, core: singBox, port: 20800, routingMark: 255 }))).not.toContain('anti-dpi');
  });

  it('sing-box: the server detours through a socks outbound to the inbound; the mark moves to it', () => {
    const config = singBoxCarrierConfig({ server: anytls, core: singBox, port: 20800, routingMark: 255, antiDpi: { port: 20900, udp: false } }) as Json;
    expect(tagged(config, 'proxy')).toMatchObject({ type: 'anytls', detour: 'anti-dpi' });
    expect(tagged(config, 'proxy')!.routing_mark).toBeUndefined();
    expect(tagged(config, 'anti-dpi')).toEqual({ type: 'socks', tag: 'anti-dpi', server: '127.0.0.1', server_port: 20900, version: '5', network: 'tcp', routing_mark: 255 });
    expect(config.inbounds).toEqual([{ type: 'mixed', tag: 'carrier-in', listen: '127.0.0.1', listen_port: 20800 }]);
  });

  it('sing-box: a QUIC server’s socks outbound carries UDP too', () => {
    const config = singBoxCarrierConfig({ server: tuic, core: singBox, port: 20800, antiDpi: { port: 20900, udp: true } }) as Json;
    expect(tagged(config, 'proxy')).toMatchObject({ type: 'tuic', detour: 'anti-dpi' });
    expect(tagged(config, 'anti-dpi')).toEqual({ type: 'socks', tag: 'anti-dpi', server: '127.0.0.1', server_port: 20900, version: '5' });
  });

  it('sing-box: ShadowTLS’s handshake helper, the connection the network sees, is the one dialled through it', () => {
    const config = singBoxCarrierConfig({ server: shadowTls, core: singBox, port: 20800, antiDpi: { port: 20900, udp: false } }) as Json;
    expect(tagged(config, 'proxy')).toMatchObject({ type: 'shadowsocks', detour: 'proxy-shadowtls' });
    expect(tagged(config, 'proxy-shadowtls')).toMatchObject({ type: 'shadowtls', detour: 'anti-dpi' });
  });

  it('sing-box, chained: the first hop dials through it, the server through the first hop', () => {
    const config = singBoxCarrierConfig({ server: named('vmess', 'inner'), via: anytls, core: singBox, port: 20800, antiDpi: { port: 20900, udp: false } }) as Json;
    expect(tagged(config, 'proxy')).toMatchObject({ type: 'vmess', detour: 'proxy-via' });
    expect(tagged(config, 'proxy-via')).toMatchObject({ type: 'anytls', detour: 'anti-dpi' });
    // The options follow the first hop's kind: an AnyTLS first hop gets the fragment.
    expect(carriedAntiDpi(both, xray, anytls).written).toEqual({ fragment: FRAGMENT, noise: null });
  });
});
