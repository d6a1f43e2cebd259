import { describe, expect, it } from 'vitest';
import type { Server } from '../../../shared/domain/server';
import { sampleServer } from '../samples';
import { unsupportedReason } from '../support';
import { profileFromTable, SING_BOX_HERE_TAGS } from '../testing/profile';

const here = profileFromTable('sing-box', '1.14.1', '/opt/sing-box', SING_BOX_HERE_TAGS);
const release = profileFromTable('sing-box', '1.14.2', '/opt/sing-box', ['with_gvisor', 'with_quic', 'with_wireguard', 'with_utls', 'with_clash_api', 'with_naive_outbound']);
const noQuic = profileFromTable('sing-box', '1.14.1', '/opt/sing-box', ['with_utls']);
const with_ = (protocol: Server['protocol'], extra: Record<string, unknown>, network: Server['transport']['network'] = 'tcp'): Server => sampleServer(protocol, network, extra as Partial<Server>);
const tls = { type: 'tls', sni: 'example.com' } as const;
const reality = { type: 'reality', sni: 'www.example.com', publicKey: 'Z84J2IelR9ch3k8VtlVhhs5ycBUlXA7wHBWcBrjqnAw', shortId: '6ba8' } as const;
const PIN = 'a'.repeat(64);

describe('unsupportedReason on sing-box (the carrier)', () => {
  it.each<[string, Server, typeof here, string | null]>([
    // What it carries that no v2ray-family core does.
    ['TUIC v5', sampleServer('tuic'), here, null],
    ['AnyTLS', sampleServer('anytls'), here, null],
    ['Hysteria v1', sampleServer('hysteria'), here, null],
    ['Hysteria2 with salamander and port hopping', with_('hysteria2', { obfs: { type: 'salamander', password: 'abcd' }, portHopping: '443,20000-30000' }), here, null],
    ['ShadowTLS v3 in front of shadowsocks 2022', with_('shadowsocks', { method: '2022-blake3-aes-128-gcm', password: 'BwcHBwcHBwcHBwcHBwcHBw==', plugin: { name: 'shadow-tls', options: 'host=www.apple.com;password=p;version=3' } }), here, null],
    ['shadowsocks behind obfs-local', with_('shadowsocks', { plugin: { name: 'obfs-local', options: 'obfs=http;obfs-host=a.example' } }), here, null],
    ['VLESS REALITY Vision', with_('vless', { security: reality, flow: 'xtls-rprx-vision' }), here, null],
    ['vmess over WebSocket with TLS', with_('vmess', { security: tls }, 'ws'), here, null],
    ['trojan over gRPC', with_('trojan', { security: tls }, 'grpc'), here, null],
    ['vmess over QUIC with TLS', with_('vmess', { security: tls }, 'quic'), here, null],
    ['a pin with permission to skip verification', with_('trojan', { security: { ...tls, pinnedCertSha256: [PIN], allowInsecure: true } }), here, null],
    ['WireGuard on a release build', sampleServer('wireguard'), release, null],
    ['Naive on a release build', sampleServer('naive'), release, null],
    // What this build lacks.
    ['WireGuard here', sampleServer('wireguard'), here, 'not supported by sing-box 1.14.1: WireGuard is not in this build (it was built without with_wireguard)'],
    ['Naive here', sampleServer('naive'), here, 'not supported by sing-box 1.14.1: NaiveProxy is not in this build (it was built without with_naive_outbound)'],
    ['TUIC without QUIC', sampleServer('tuic'), noQuic, 'not supported by sing-box 1.14.1: TUIC is not in this build (it was built without with_quic)'],
    ['REALITY without uTLS', with_('vless', { security: reality }), profileFromTable('sing-box', '1.14.1', '/opt/sing-box', ['with_quic']), 'not supported by sing-box 1.14.1: REALITY is not in this build (it was built without with_utls)'],
    // What sing-box has no form for.
    ['a certificate pin alone', with_('trojan', { security: { ...tls, pinnedCertSha256: [PIN] } }), here, expect.stringMatching(/^not supported by sing-box 1.14.1: the server pins its certificate \(pcs\) and this core cannot check a pin/) as unknown as string],
    ['XHTTP', with_('vless', {}, 'xhttp'), here, 'not supported by sing-box 1.14.1: XHTTP is not available in sing-box'],
    ['mKCP', with_('vmess', {}, 'kcp'), here, 'not supported by sing-box 1.14.1: mKCP is not available in sing-box'],
    ['TCP with an HTTP header', with_('vmess', { transport: { network: 'tcp', headerType: 'http' } }), here, 'not supported by sing-box 1.14.1: the TCP header obfuscation "http" is not available in sing-box'],
    ['VLESS Encryption', with_('vless', { encryption: 'mlkem768x25519plus.native.0rtt.AAAA' }), here, 'not supported by sing-box 1.14.1: VLESS Encryption (mlkem768x25519plus) needs Xray ≥ 25.9.5'],
    ['the udp443 Vision flow', with_('vless', { security: tls, flow: 'xtls-rprx-vision-udp443' }), here, 'not supported by sing-box 1.14.1: the VLESS flow "xtls-rprx-vision-udp443" is not one sing-box has (only xtls-rprx-vision)'],
    ['a uTLS fingerprint sing-box does not know', with_('trojan', { security: { ...tls, fingerprint: 'randomizednoalpn' } }), here, 'not supported by sing-box 1.14.1: the uTLS fingerprint "randomizednoalpn" is not one sing-box knows'],
    ['Hysteria over faketcp', with_('hysteria', { carrier: 'faketcp' }), here, 'not supported by sing-box 1.14.1: Hysteria over faketcp needs the original Hysteria client (sing-box speaks it over UDP only)'],
    ['Hysteria without speeds', with_('hysteria', { upMbps: 0 }), here, 'not supported by sing-box 1.14.1: the Hysteria entry gives no upload and download speeds, which Hysteria v1 needs'],
    ['a TUIC congestion control it lacks', with_('tuic', { congestionControl: 'brutal' }), here, 'not supported by sing-box 1.14.1: the TUIC congestion control "brutal" is unknown (cubic, new_reno or bbr)'],
    ['ShadowTLS v3 without its password', with_('shadowsocks', { plugin: { name: 'shadow-tls', options: 'host=www.apple.com;version=3' } }), here, 'not supported by sing-box 1.14.1: the ShadowTLS v3 entry has no password'],
    ['the kcptun plugin', with_('shadowsocks', { plugin: { name: 'kcptun', options: '' } }), here, 'not supported by sing-box 1.14.1: the shadowsocks plugin "kcptun" is a separate program the core does not run'],
    ['SOCKS over TLS', with_('socks', { security: tls }), here, 'not supported by sing-box 1.14.1: SOCKS over TLS is not supported by this core'],
  ])('%s', (_name, server, core, expected) => {
    expect(unsupportedReason(server, core)).toEqual(expected);
  });

  it('chains through any server it carries (detour)', () => {
    expect(unsupportedReason(with_('vless', { security: tls }, 'ws'), here, sampleServer('anytls'))).toBeNull();
  });
});
