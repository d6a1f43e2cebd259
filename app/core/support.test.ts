import { describe, expect, it } from 'vitest';
import type { Network, Server } from '../../shared/domain/server';
import type { CoreProfile } from './capabilities';
import { profileFromTable } from './testing/profile';
import { sampleServer } from './samples';
import { splitRunnable, unsupportedReason } from './support';

/** A profile whose config test refuted one feature the table claims. */
function withoutFeature(profile: CoreProfile, feature: string): CoreProfile {
  const features = new Set(profile.capabilities.features);
  features.delete(feature);
  return { ...profile, capabilities: { ...profile.capabilities, features } };
}

function withoutNetwork(profile: CoreProfile, network: Network): CoreProfile {
  const networks = new Set(profile.capabilities.networks);
  networks.delete(network);
  return { ...profile, capabilities: { ...profile.capabilities, networks } };
}

const v2ray434 = profileFromTable('v2ray', '4.34.0');
const v2ray437 = profileFromTable('v2ray', '4.37.0');
const v2ray5 = profileFromTable('v2ray', '5.16.1');
const xray17 = profileFromTable('xray', '1.7.5');
const xray18 = profileFromTable('xray', '1.8.24');
const xray25 = profileFromTable('xray', '25.3.6');
const xray26 = profileFromTable('xray', '26.1.18');
const singBox = profileFromTable('sing-box', '1.10.1');

/** VLESS Encryption with one X25519 key, as PasarGuard panels write it. */
const ENC = 'mlkem768x25519plus.native.0rtt.100-111-1111.CQAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA';
const reality = (s: Server): Server => ({ ...s, security: { type: 'reality', sni: 'www.example.com', publicKey: 'Z84J2IelR9ch3k8VtlVhhs5ycBUlXA7wHBWcBrjqnAw', shortId: '6ba85179e30d4fc2' } });
const tls = (s: Server): Server => ({ ...s, security: { type: 'tls', sni: 'example.com' } });

describe('unsupportedReason', () => {
  it.each<[string, Server, ReturnType<typeof profileFromTable>, string | null]>([
    // Runs everywhere in the family.
    ['vmess tcp on v2ray 4.34', sampleServer('vmess'), v2ray434, null],
    ['vless tls ws on v2ray 4.34', tls(sampleServer('vless', 'ws')), v2ray434, null],
    ['trojan tls on v2ray 4.34', tls(sampleServer('trojan')), v2ray434, null],
    ['shadowsocks aes-256-gcm on v2ray 4.34', sampleServer('shadowsocks', 'tcp', { method: 'AES-256-GCM' } as Partial<Server>), v2ray434, null],
    ['socks on v2ray 4.34', sampleServer('socks'), v2ray434, null],
    ['http over TLS on v2ray 4.34', tls(sampleServer('http')), v2ray434, null],
    ['kcp on v2ray 4.34', sampleServer('vmess', 'kcp', { transport: { network: 'kcp', headerType: 'wechat-video', seed: 's' } }), v2ray434, null],
    // Xray-only features.
    ['REALITY on v2ray 4.34', reality(sampleServer('vless')), v2ray434, 'not supported by v2ray 4.34.0: REALITY needs Xray ≥ 1.8.0'],
    ['REALITY on v2ray 5', reality(sampleServer('vless')), v2ray5, 'not supported by v2ray 5.16.1: REALITY needs Xray ≥ 1.8.0'],
    ['REALITY on Xray 1.7', reality(sampleServer('vless')), xray17, 'not supported by Xray 1.7.5: REALITY needs Xray ≥ 1.8.0'],
    ['REALITY on Xray 1.8', reality(sampleServer('vless')), xray18, null],
    ['REALITY over gRPC on Xray 25', reality(sampleServer('vless', 'grpc')), xray25, null],
    ['REALITY over WebSocket', reality(sampleServer('vless', 'ws')), xray25, 'not supported by Xray 25.3.6: REALITY does not work over WebSocket (only TCP, gRPC, XHTTP or HTTP/2)'],
    ['vision on v2ray 4.34', tls(sampleServer('vless', 'tcp', { flow: 'xtls-rprx-vision' } as Partial<Server>)), v2ray434, 'not supported by v2ray 4.34.0: the VLESS flow xtls-rprx-vision needs Xray ≥ 1.8.0'],
    ['vision on Xray 25', tls(sampleServer('vless', 'tcp', { flow: 'xtls-rprx-vision' } as Partial<Server>)), xray25, null],
    ['vision without TLS', sampleServer('vless', 'tcp', { flow: 'xtls-rprx-vision' } as Partial<Server>), xray25, 'not supported by Xray 25.3.6: the VLESS flow xtls-rprx-vision needs TLS, REALITY or VLESS Encryption'],
    ['XTLS v1 flow', tls(sampleServer('vless', 'tcp', { flow: 'xtls-rprx-direct' } as Partial<Server>)), xray25, 'not supported by Xray 25.3.6: the VLESS flow "xtls-rprx-direct" is obsolete (XTLS v1) and no current core runs it'],
    ['VLESS Encryption on Xray 25.3', sampleServer('vless', 'tcp', { encryption: ENC } as Partial<Server>), xray25, 'not supported by Xray 25.3.6: VLESS Encryption (mlkem768x25519plus) needs Xray ≥ 25.9.5'],
    ['VLESS Encryption on v2ray 4.34', sampleServer('vless', 'tcp', { encryption: ENC } as Partial<Server>), v2ray434, 'not supported by v2ray 4.34.0: VLESS Encryption (mlkem768x25519plus) needs Xray ≥ 25.9.5'],
    ['VLESS Encryption on Xray 26', sampleServer('vless', 'tcp', { encryption: ENC } as Partial<Server>), xray26, null],
    ['VLESS Encryption carries vision without TLS', sampleServer('vless', 'tcp', { encryption: ENC, flow: 'xtls-rprx-vision' } as Partial<Server>), xray26, null],
    ['an unknown VLESS encryption', sampleServer('vless', 'tcp', { encryption: 'test_algorithm' } as Partial<Server>), xray26, 'not supported by Xray 26.1.18: VLESS encryption "test_algorithm" is unknown (only "none" or mlkem768x25519plus)'],
    // Transports by version.
    ['gRPC on v2ray 4.34', sampleServer('vless', 'grpc'), v2ray434, 'not supported by v2ray 4.34.0: gRPC needs v2ray ≥ 4.36, v2ray 5 or Xray'],
    ['gRPC on v2ray 4.37', sampleServer('vless', 'grpc'), v2ray437, null],
    ['httpupgrade on v2ray 4.34', sampleServer('vless', 'httpupgrade'), v2ray434, 'not supported by v2ray 4.34.0: HTTPUpgrade needs Xray ≥ 1.8.9 or v2ray 5'],
    ['httpupgrade on v2ray 5', sampleServer('vless', 'httpupgrade'), v2ray5, null],
    ['xhttp on v2ray 5', sampleServer('vless', 'xhttp'), v2ray5, 'not supported by v2ray 5.16.1: XHTTP needs Xray ≥ 1.8.16'],
    ['xhttp on Xray 25', sampleServer('vless', 'xhttp'), xray25, null],
    ['QUIC on Xray 25', sampleServer('vmess', 'quic'), xray25, 'not supported by Xray 25.3.6: QUIC transport needs v2ray or Xray before 24.9.30'],
    ['h2 on Xray 25', tls(sampleServer('vmess', 'h2')), xray25, 'not supported by Xray 25.3.6: HTTP/2 transport needs v2ray or Xray before 24.12 (newer Xray replaced it with XHTTP)'],
    ['mKCP on Xray 26 (FinalMask)', sampleServer('vmess', 'kcp'), xray26, null],
    ['mKCP on an Xray 26 without FinalMask', sampleServer('vmess', 'kcp'), withoutNetwork(xray26, 'kcp'), 'not supported by Xray 26.1.18: mKCP needs v2ray or Xray'],
    ['mKCP on Xray 25', sampleServer('vmess', 'kcp'), xray25, null],
    ['h2 on v2ray 4.34', tls(sampleServer('vmess', 'h2')), v2ray434, null],
    // Protocols by family.
    ['WireGuard on v2ray 4.34', sampleServer('wireguard'), v2ray434, 'not supported by v2ray 4.34.0: WireGuard needs Xray'],
    ['WireGuard on Xray 1.8', sampleServer('wireguard'), xray18, null],
    ['Hysteria2 on v2ray 4.34', sampleServer('hysteria2'), v2ray434, 'not supported by v2ray 4.34.0: Hysteria2 needs Xray ≥ 26.1.13'],
    ['Hysteria2 on Xray 25', sampleServer('hysteria2'), xray25, 'not supported by Xray 25.3.6: Hysteria2 needs Xray ≥ 26.1.13'],
    ['Hysteria2 on Xray 26.1.9', sampleServer('hysteria2'), profileFromTable('xray', '26.1.9'), 'not supported by Xray 26.1.9: Hysteria2 needs Xray ≥ 26.1.13'],
    ['Hysteria2 on Xray 26.1.18', sampleServer('hysteria2'), xray26, null],
    ['Hysteria2 port hopping on an Xray whose transport hops', sampleServer('hysteria2', 'tcp', { portHopping: '443-500' } as Partial<Server>), xray26, null],
    ['Hysteria2 port hopping on an Xray refuted by its config test', sampleServer('hysteria2', 'tcp', { portHopping: '443-500' } as Partial<Server>), withoutFeature(xray26, 'hysteria2-port-hopping'), 'not supported by Xray 26.1.18: Hysteria2 port hopping (ports 443-500) is not supported by this core'],
    ['Hysteria2 with salamander', sampleServer('hysteria2', 'tcp', { obfs: { type: 'salamander', password: 'obfs-pass' } } as Partial<Server>), xray26, null],
    ['Hysteria2 with a 3-byte salamander password', sampleServer('hysteria2', 'tcp', { obfs: { type: 'salamander', password: 'abc' } } as Partial<Server>), xray26, 'not supported by Xray 26.1.18: the Hysteria2 salamander password is shorter than 4 bytes'],
    ['Hysteria2 with another obfuscation', sampleServer('hysteria2', 'tcp', { obfs: { type: 'gecko', password: 'obfs-pass' } } as Partial<Server>), xray26, 'not supported by Xray 26.1.18: Hysteria2 obfuscation (gecko) is not supported by this core'],
    ['TUIC on Xray', sampleServer('tuic'), xray26, 'not supported by Xray 26.1.18: TUIC needs sing-box (no v2ray or Xray version has TUIC)'],
    // Shadowsocks ciphers and plugins.
    ['ss2022 on v2ray 4.34', sampleServer('shadowsocks', 'tcp', { method: '2022-blake3-aes-128-gcm' } as Partial<Server>), v2ray434, 'not supported by v2ray 4.34.0: Shadowsocks 2022 (2022-blake3-aes-128-gcm) needs Xray ≥ 1.6.0'],
    ['ss2022 on Xray 1.8', sampleServer('shadowsocks', 'tcp', { method: '2022-blake3-aes-128-gcm' } as Partial<Server>), xray18, null],
    ['aes-256-cfb on v2ray 4.34', sampleServer('shadowsocks', 'tcp', { method: 'aes-256-cfb' } as Partial<Server>), v2ray434, 'not supported by v2ray 4.34.0: the stream cipher aes-256-cfb was removed from this core (only AEAD ciphers remain)'],
    ['unknown ss cipher', sampleServer('shadowsocks', 'tcp', { method: 'rot13' } as Partial<Server>), v2ray434, 'not supported by v2ray 4.34.0: the Shadowsocks cipher "rot13" is not available in this core'],
    ['obfs-local plugin', sampleServer('shadowsocks', 'tcp', { plugin: { name: 'obfs-local', options: 'obfs=http;obfs-host=example.com' } } as Partial<Server>), xray25, 'not supported by Xray 25.3.6: the shadowsocks plugin "obfs-local" is a separate program the core does not run'],
    ['v2ray-plugin quic mode', sampleServer('shadowsocks', 'tcp', { plugin: { name: 'v2ray-plugin', options: 'mode=quic;host=example.com' } } as Partial<Server>), v2ray434, 'not supported by v2ray 4.34.0: the shadowsocks plugin "v2ray-plugin" is a separate program the core does not run'],
    ['v2ray-plugin websocket mode', sampleServer('shadowsocks', 'tcp', { plugin: { name: 'v2ray-plugin', options: 'tls;host=example.com;path=/ss' } } as Partial<Server>), v2ray434, null],
    // VMess details.
    ['unknown vmess cipher', sampleServer('vmess', 'tcp', { cipher: 'aes-256-cfb' } as Partial<Server>), v2ray434, 'not supported by v2ray 4.34.0: the VMess cipher "aes-256-cfb" is unknown'],
    ['alterId 64 on v2ray 4.34', sampleServer('vmess', 'tcp', { alterId: 64 } as Partial<Server>), v2ray434, null],
    ['alterId 64 on Xray', sampleServer('vmess', 'tcp', { alterId: 64 } as Partial<Server>), xray25, 'not supported by Xray 25.3.6: VMess with alterId > 0 (legacy MD5 authentication) was removed from Xray; the server must offer alterId 0 (AEAD)'],
    ['odd tcp header', sampleServer('vmess', 'tcp', { transport: { network: 'tcp', headerType: 'srtp' } }), v2ray434, 'not supported by v2ray 4.34.0: the TCP header type "srtp" is unknown'],
    // sing-box is detected but not driven.
    ['anything on a sing-box too old to drive', sampleServer('vmess'), singBox, 'not supported by sing-box 1.10.1: this app drives sing-box 1.12.0 or later'],
    ['AnyTLS on Xray', sampleServer('anytls'), xray26, 'not supported by Xray 26.1.18: AnyTLS needs sing-box ≥ 1.12'],
    ['Hysteria v1 on Xray', sampleServer('hysteria'), xray26, 'not supported by Xray 26.1.18: Hysteria (v1) needs sing-box (Xray has only Hysteria2)'],
  ])('%s', (_label, server, core, expected) => {
    expect(unsupportedReason(server, core)).toBe(expected);
  });

  it('never puts a credential in a reason', () => {
    const secretive = sampleServer('shadowsocks', 'tcp', { method: 'rc4-md5', password: 'hunter2-secret' } as Partial<Server>);
    const vless = sampleServer('vless', 'grpc');
    for (const [server, core] of [[secretive, v2ray434], [vless, v2ray434], [reality(vless), v2ray5]] as const) {
      const reason = unsupportedReason(server, core) ?? '';
      expect(reason).not.toContain('hunter2-secret');
      expect(reason).not.toContain((vless as { uuid: string }).uuid);
    }
  });

  describe('chained servers', () => {
    const upstream = { ...sampleServer('trojan'), id: 'up', name: 'Upstream NL' } as Server;

    it('v2ray 4.34 chains a plain TCP server (proxySettings keeps nothing else)', () => {
      expect(unsupportedReason(sampleServer('vmess'), v2ray434, upstream)).toBeNull();
    });

    it('v2ray 4.34 refuses to chain a TLS or WebSocket server, naming why', () => {
      expect(unsupportedReason(tls(sampleServer('vmess', 'ws')), v2ray434, upstream)).toBe(
        'not supported by v2ray 4.34.0: chaining a server over WebSocket with TLS needs v2ray ≥ 4.35 or Xray (this core drops the transport of a chained server)',
      );
    });

    it('Xray and v2ray 5 chain anything they can run', () => {
      expect(unsupportedReason(tls(sampleServer('vmess', 'ws')), xray25, upstream)).toBeNull();
      expect(unsupportedReason(tls(sampleServer('vmess', 'ws')), v2ray5, upstream)).toBeNull();
    });

    it('an upstream the core cannot run makes the chain unsupported, by name', () => {
      const badUpstream = { ...reality(sampleServer('vless')), name: 'Upstream DE' } as Server;
      expect(unsupportedReason(sampleServer('vmess'), v2ray434, badUpstream)).toBe(
        'not supported by v2ray 4.34.0: its upstream server Upstream DE cannot run (REALITY needs Xray ≥ 1.8.0)',
      );
    });

    it('a front that is itself chained is refused on every core: the config would drop its own hop', () => {
      const chainedFront = { ...upstream, via: 'further' } as Server;
      for (const core of [v2ray434, xray25, v2ray5]) {
        expect(unsupportedReason(sampleServer('vmess'), core, chainedFront)).toBe(
          'reached through Upstream NL, which is itself reached through another server: a chain has one front here',
        );
      }
    });
  });
});

describe('splitRunnable', () => {
  it('keeps every server, each either runnable or with its reason', () => {
    const entries = [sampleServer('vmess'), sampleServer('wireguard'), reality(sampleServer('vless')), sampleServer('trojan')].map((server) => ({ server }));
    const { runnable, unsupported } = splitRunnable(entries, v2ray434);
    expect(runnable.map((e) => e.server.protocol)).toEqual(['vmess', 'trojan']);
    expect(unsupported.map((u) => [u.entry.server.protocol, u.reason])).toEqual([
      ['wireguard', 'not supported by v2ray 4.34.0: WireGuard needs Xray'],
      ['vless', 'not supported by v2ray 4.34.0: REALITY needs Xray ≥ 1.8.0'],
    ]);
  });
});
