import { describe, expect, it } from 'vitest';
import type { Server, ServerId } from '../../shared/domain/server';
import { type AntiDpiSettings, antiDpiSettingsSchema } from '../../shared/settings';
import { antiDpiFor } from './anti-dpi';
import { chooseCarrier } from './carrier';
import { fragmentApplied, probeRelays } from './probe-anti-dpi';
import { proberConfig } from './prober-config';
import { sampleServer } from './samples';
import { singBoxProberConfig } from './sing-box/config';
import { profileFromTable, SING_BOX_HERE_TAGS } from './testing/profile';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const xray = profileFromTable('xray', '26.3.27');
const singBox = profileFromTable('sing-box', '1.14.1', '/opt/sing-box', SING_BOX_HERE_TAGS);
const FRAGMENT = { packets: 'tlshello', length: '100-200', interval: '10-20' };
const NOISE = { type: 'rand', packet: '10-20', delay: '10-16' } as const;
const named = (protocol: Server['protocol'], name: string, extra: Partial<Server> = {}) => ({ ...sampleServer(protocol, 'tcp', extra), id: name, name }) as Server;
const anytls = named('anytls', 'AT');
const quietAnytls = named('anytls', 'AT quiet');
const tuic = named('tuic', 'TU');
const vless = named('vless', 'VL');
const shadowTls = named('shadowsocks', 'STLS', { plugin: { name: 'shadow-tls', options: 'host=www.apple.com;password=p;version=3' } } as Partial<Server>);

const settings = (fragmentOn: boolean, noiseOn = false, servers: AntiDpiSettings['servers'] = {}) =>
  antiDpiSettingsSchema.parse({ fragment: { enabled: fragmentOn, ...FRAGMENT }, noise: { enabled: noiseOn, ...NOISE }, servers });

/**
 * Both probers' configs for `servers` with these settings, wired as CarrierProber and its
 * generations wire them: relay j on port 30000+j of the main prober's core, and each carried
 * server's sing-box entry dialling its own relay's port.
 */
function proberConfigs(servers: Server[], antiDpi: AntiDpiSettings): { xray: Json; singBox: Json; notApplied: string[] } {
  const options = (id: ServerId) => antiDpiFor(antiDpi, id);
  const { relays, notApplied } = probeRelays(servers, options, xray, [singBox]);
  const ported = relays.map((relay, j) => ({ ...relay, port: 30000 + j }));
  const kind = (s: Server) => chooseCarrier(s, undefined, xray, [singBox]).kind;
  const main = servers.filter((s) => kind(s) === 'main');
  const carried = servers.filter((s) => kind(s) === 'carried');
  const hop = (id: ServerId) => ported.find((r) => r.serverId === id);
  return {
    xray: proberConfig({ entries: main.map((server, i) => ({ server, port: 20000 + i, antiDpi: options(server.id) })), relays: ported, core: xray, listen: '127.0.0.1', outboundMark: 255 }) as Json,
    singBox: singBoxProberConfig({
      entries: carried.map((server, i) => ({ server, port: 21000 + i, ...(hop(server.id) ? { antiDpi: { port: hop(server.id)!.port, udp: hop(server.id)!.udp } } : {}) })),
      core: singBox,
      listen: '127.0.0.1',
      outboundMark: 255,
    }) as Json,
    notApplied,
  };
}

const tagged = (config: Json, tag: string): Json | undefined => (config.outbounds as Json[]).find((o) => o.tag === tag);

/** Where the Xray prober sends what enters on `port`: its inbound there, and the outbound its rule names. */
function xrayRelayAt(config: Json, port: number): { inbound: Json | undefined; outbound: Json | undefined } {
  const inbound = (config.inbounds as Json[]).find((i) => i.port === port);
  const rule = (config.routing.rules as Json[]).find((r) => inbound && r.inboundTag?.includes(inbound.tag));
  return { inbound, outbound: rule ? tagged(config, rule.outboundTag) : undefined };
}

describe('which carried servers the main prober core relays for, with what', () => {
  it.each<[string, Server[], AntiDpiSettings, { serverId: string; fragment: boolean; noise: boolean; udp: boolean }[], RegExp[]]>([
    ['AnyTLS with the fragment on: a relay with the fragment', [anytls], settings(true), [{ serverId: 'AT', fragment: true, noise: false, udp: false }], []],
    ['the options off: no relay, nothing said', [anytls, tuic], settings(false), [], []],
    ['TUIC: the noise over UDP; the fragment said not to apply', [tuic], settings(true, true), [{ serverId: 'TU', fragment: false, noise: true, udp: true }], [/^TU: the TLS ClientHello fragment does not apply to TUIC/]],
    ['ShadowTLS v3 with "tlshello": no relay, and why', [shadowTls], settings(true), [], [/^STLS: .*"tlshello"\) would break ShadowTLS v3/]],
    ['a server the main core runs: none (its own prober entry has the options)', [vless], settings(true, true), [], []],
    ['a server set to off: none for it, the others keep theirs', [anytls, quietAnytls], settings(true, false, { 'AT quiet': 'off' }), [{ serverId: 'AT', fragment: true, noise: false, udp: false }], []],
  ])('%s', (_name, servers, antiDpi, expected, notes) => {
    const { relays, notApplied } = probeRelays(servers, (id) => antiDpiFor(antiDpi, id), xray, [singBox]);
    expect(relays.map((r) => ({ serverId: r.serverId, fragment: !!r.antiDpi.fragment, noise: !!r.antiDpi.noise, udp: r.udp }))).toEqual(expected);
    expect(notApplied).toHaveLength(notes.length);
    notes.forEach((note, i) => expect(notApplied[i]).toMatch(note));
  });

  it('a chained carried server: the options are its first hop’s (the upstream the network sees)', () => {
    const inner = named('anytls', 'inner', { via: 'TU' } as Partial<Server>);
    const { relays } = probeRelays([tuic, inner], (id) => antiDpiFor(settings(true, true), id), xray, [singBox]);
    // TUIC's own relay, and the chained AnyTLS's, which is TUIC's kind: UDP, noise only.
    expect(relays.find((r) => r.serverId === 'inner')).toEqual({ serverId: 'inner', antiDpi: { fragment: null, noise: NOISE }, udp: true });
  });
});

describe('whether a test really has its ClientHello fragmented (the transfer test notes it)', () => {
  const v2ray = profileFromTable('v2ray', '4.34.0');
  it.each<[string, Server, AntiDpiSettings, typeof xray, boolean]>([
    ['AnyTLS carried, the fragment on: fragmented by the relay', anytls, settings(true), xray, true],
    ['TUIC carried: its ClientHello is inside QUIC, not fragmented', tuic, settings(true), xray, false],
    ['ShadowTLS v3 with "tlshello": left out, not fragmented', shadowTls, settings(true), xray, false],
    ['VLESS on Xray, the fragment on: fragmented', vless, settings(true), xray, true],
    ['VLESS on v2ray, which cannot write it: not fragmented', vless, settings(true), v2ray, false],
    ['the fragment off: not fragmented', anytls, settings(false), xray, false],
  ])('%s', (_name, server, antiDpi, main, expected) => {
    expect(fragmentApplied(antiDpiFor(antiDpi, server.id), server, undefined, main, [singBox])).toBe(expected);
  });
});

describe('the configs the probers get for a carried server', () => {
  it('fragment on: the AnyTLS outbound of sing-box’s prober detours through a loopback SOCKS5 inbound of Xray’s prober, routed to a freedom with the fragment and the mark', () => {
    const { xray: main, singBox: carrier } = proberConfigs([anytls, vless], settings(true));
    const outbound = tagged(carrier, 'probe-0')!;
    expect(outbound).toMatchObject({ type: 'anytls', detour: 'probe-0-anti-dpi' });
    expect(outbound.routing_mark).toBeUndefined();
    const hop = tagged(carrier, 'probe-0-anti-dpi')!;
    expect(hop).toEqual({ type: 'socks', tag: 'probe-0-anti-dpi', server: '127.0.0.1', server_port: 30000, version: '5', network: 'tcp', routing_mark: 255 });
    const relay = xrayRelayAt(main, hop.server_port);
    expect(relay.inbound).toEqual({ tag: 'relay-in-0', listen: '127.0.0.1', port: 30000, protocol: 'socks', settings: { auth: 'noauth', udp: false } });
    expect(relay.outbound).toMatchObject({ protocol: 'freedom', settings: { fragment: FRAGMENT }, streamSettings: { sockopt: { mark: 255 } } });
    // The server the main core runs keeps its own options, as before.
    expect(tagged(main, 'probe-0')!.streamSettings.sockopt.dialerProxy).toBe('probe-0-anti-dpi');
  });

  it('noise on for TUIC: the relay takes UDP, its replies on loopback; the socks hop carries UDP', () => {
    const { xray: main, singBox: carrier } = proberConfigs([tuic], settings(false, true));
    expect(tagged(carrier, 'probe-0')).toMatchObject({ type: 'tuic', detour: 'probe-0-anti-dpi' });
    const hop = tagged(carrier, 'probe-0-anti-dpi')!;
    expect(hop.network).toBeUndefined();
    const relay = xrayRelayAt(main, hop.server_port);
    expect(relay.inbound!.settings).toEqual({ auth: 'noauth', udp: true, ip: '127.0.0.1' });
    expect(relay.outbound!.settings).toEqual({ noises: [NOISE] });
  });

  it('off: sing-box dials the server itself (with the mark) and Xray’s prober has no relay', () => {
    const { xray: main, singBox: carrier } = proberConfigs([anytls, tuic, vless], settings(false));
    expect(JSON.stringify(carrier)).not.toContain('anti-dpi');
    expect(tagged(carrier, 'probe-0')).toMatchObject({ type: 'anytls', routing_mark: 255 });
    expect(tagged(carrier, 'probe-0')!.detour).toBeUndefined();
    expect((main.inbounds as Json[]).map((i) => i.tag)).toEqual(['probe-in-0']);
  });

  it('a per-server override reaches only its server: one set to off dials directly, one with values of its own gets those', () => {
    const own = { packets: 'tlshello', length: '300-400', interval: '40-50' };
    const overrides = { 'AT quiet': 'off' as const, TU: 'off' as const, own: { fragment: { enabled: true, ...own }, noise: { enabled: false, ...NOISE } } };
    const ownAnytls = named('anytls', 'own');
    const { xray: main, singBox: carrier } = proberConfigs([anytls, quietAnytls, ownAnytls, tuic], settings(true, true, overrides));
    // Entries in the servers' order: AT, AT quiet, own, TU.
    expect(tagged(carrier, 'probe-0')!.detour).toBe('probe-0-anti-dpi');
    expect(tagged(carrier, 'probe-1')!.detour).toBeUndefined();
    expect(tagged(carrier, 'probe-2')!.detour).toBe('probe-2-anti-dpi');
    expect(tagged(carrier, 'probe-3')!.detour).toBeUndefined();
    expect(tagged(carrier, 'probe-1-anti-dpi')).toBeUndefined();
    expect(xrayRelayAt(main, tagged(carrier, 'probe-0-anti-dpi')!.server_port).outbound!.settings).toEqual({ fragment: FRAGMENT });
    expect(xrayRelayAt(main, tagged(carrier, 'probe-2-anti-dpi')!.server_port).outbound!.settings).toEqual({ fragment: own });
  });

  it('ShadowTLS: its handshake helper, the connection the network sees, is the one dialled through the relay', () => {
    const raw = { packets: '1-1', length: '100-200', interval: '10-20' };
    const { singBox: carrier } = proberConfigs([shadowTls], antiDpiSettingsSchema.parse({ fragment: { enabled: true, ...raw } }));
    expect(tagged(carrier, 'probe-0')).toMatchObject({ type: 'shadowsocks', detour: 'probe-0-shadowtls' });
    expect(tagged(carrier, 'probe-0-shadowtls')).toMatchObject({ type: 'shadowtls', detour: 'probe-0-anti-dpi' });
  });

  it('a relay port clashing with a probe inbound is refused', () => {
    const relay = { port: 20000, antiDpi: { fragment: FRAGMENT, noise: null }, udp: false };
    expect(() => proberConfig({ entries: [{ server: vless, port: 20000 }], relays: [relay], core: xray, listen: '127.0.0.1' })).toThrow(/used twice/);
  });
});
