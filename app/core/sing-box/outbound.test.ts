import { describe, expect, it } from 'vitest';
import type { Server } from '../../../shared/domain/server';
import { UnsupportedServerError } from '../errors';
import { sampleServer } from '../samples';
import { profileFromTable, SING_BOX_HERE_TAGS } from '../testing/profile';
import { singBoxCarrierConfig, singBoxProberConfig } from './config';
import { singBoxOutbound } from './outbound';

const core = profileFromTable('sing-box', '1.14.1', '/opt/sing-box', SING_BOX_HERE_TAGS);
const release = profileFromTable('sing-box', '1.14.2', '/opt/sing-box', ['with_quic', 'with_utls', 'with_wireguard', 'with_naive_outbound']);
const s = (protocol: Server['protocol'], extra: Record<string, unknown> = {}, network: Server['transport']['network'] = 'tcp'): Server => sampleServer(protocol, network, extra as Partial<Server>);

describe('singBoxOutbound', () => {
  it.each<[string, Server, Record<string, unknown>[]]>([
    [
      'Hysteria2: salamander, and the hopping ranges in sing-box’s colon form',
      s('hysteria2', { obfs: { type: 'salamander', password: 'abcd' }, portHopping: '443,20000-30000', upMbps: 20 }),
      [{ type: 'hysteria2', tag: 'proxy', server: '192.0.2.1', server_port: 443, server_ports: ['443:443', '20000:30000'], password: 'sample-password', up_mbps: 20, obfs: { type: 'salamander', password: 'abcd' }, tls: { enabled: true, server_name: 'example.com' } }],
    ],
    [
      'Hysteria v1: speeds, auth string, xplus password, the hysteria ALPN',
      s('hysteria', { obfs: 'xplus-secret' }),
      [{ type: 'hysteria', tag: 'proxy', server: '192.0.2.1', server_port: 443, up_mbps: 10, down_mbps: 50, auth_str: 'sample-auth', obfs: 'xplus-secret', tls: { enabled: true, server_name: 'example.com', alpn: ['hysteria'] } }],
    ],
    [
      'TUIC: h3 unless the link names an ALPN, insecure when the link allows it',
      s('tuic', { congestionControl: 'bbr', udpRelayMode: 'native', security: { type: 'tls', sni: 't.example', allowInsecure: true } }),
      [{ type: 'tuic', tag: 'proxy', server: '192.0.2.1', server_port: 443, uuid: '0b3f5b5e-7a52-4f4e-9b0c-2f1c4c8e9a11', password: 'sample-password', congestion_control: 'bbr', udp_relay_mode: 'native', tls: { enabled: true, server_name: 't.example', alpn: ['h3'], insecure: true } }],
    ],
    [
      'AnyTLS with a uTLS fingerprint',
      s('anytls', { security: { type: 'tls', sni: 'a.example', fingerprint: 'Chrome' } }),
      [{ type: 'anytls', tag: 'proxy', server: '192.0.2.1', server_port: 443, password: 'sample-password', tls: { enabled: true, server_name: 'a.example', utls: { enabled: true, fingerprint: 'chrome' } } }],
    ],
    [
      'ShadowTLS v3: shadowsocks detours through a shadowtls outbound that borrows the host’s handshake',
      s('shadowsocks', { method: 'chacha20-poly1305', plugin: { name: 'shadow-tls', options: 'host=www.apple.com;password=tls-pass;version=3' } }),
      [
        { type: 'shadowsocks', tag: 'proxy', server: '192.0.2.1', server_port: 443, method: 'chacha20-ietf-poly1305', password: 'sample-password', detour: 'proxy-shadowtls' },
        { type: 'shadowtls', tag: 'proxy-shadowtls', server: '192.0.2.1', server_port: 443, version: 3, password: 'tls-pass', tls: { enabled: true, server_name: 'www.apple.com', utls: { enabled: true, fingerprint: 'chrome' } } },
      ],
    ],
    [
      'VLESS REALITY Vision: uTLS (chrome unless named) and the reality block',
      s('vless', { flow: 'xtls-rprx-vision', security: { type: 'reality', sni: 'www.example.com', publicKey: 'PK', shortId: '6ba8' } }),
      [{ type: 'vless', tag: 'proxy', server: '192.0.2.1', server_port: 443, uuid: '0b3f5b5e-7a52-4f4e-9b0c-2f1c4c8e9a11', flow: 'xtls-rprx-vision', tls: { enabled: true, server_name: 'www.example.com', utls: { enabled: true, fingerprint: 'chrome' }, reality: { enabled: true, public_key: 'PK', short_id: '6ba8' } } }],
    ],
    [
      'vmess over WebSocket: `?ed=` becomes max_early_data in the header Xray servers read, the Host a header and the TLS name',
      s('vmess', { security: { type: 'tls' }, transport: { network: 'ws', path: '/ws?ed=2048', host: 'cdn.example' } }, 'ws'),
      [{ type: 'vmess', tag: 'proxy', server: '192.0.2.1', server_port: 443, uuid: '0b3f5b5e-7a52-4f4e-9b0c-2f1c4c8e9a11', security: 'auto', alter_id: 0, transport: { type: 'ws', path: '/ws', headers: { Host: 'cdn.example' }, max_early_data: 2048, early_data_header_name: 'Sec-WebSocket-Protocol' }, tls: { enabled: true, server_name: 'cdn.example' } }],
    ],
    [
      'an IPv6 server is written bare',
      s('trojan', { address: '[2001:db8::1]' }),
      [{ type: 'trojan', tag: 'proxy', server: '2001:db8::1', server_port: 443, password: 'sample-password' }],
    ],
  ])('%s', (_name, server, outbounds) => {
    expect(singBoxOutbound(server, core, 'proxy')).toEqual({ outbounds, endpoints: [] });
  });

  it('WireGuard is an endpoint (where the build has it)', () => {
    expect(singBoxOutbound(sampleServer('wireguard'), release, 'proxy')).toEqual({
      outbounds: [],
      endpoints: [
        {
          type: 'wireguard',
          tag: 'proxy',
          address: ['10.7.0.2/32'],
          private_key: 'yAnz5TF+lXXJte14tji3zlMNq+hd2rYUIgJBgB3fBmk=',
          peers: [{ address: '192.0.2.1', port: 443, public_key: 'xTIBA5rboUvnH4htodjb6e697QjLERt1NAB4mZqp8Dg=', allowed_ips: ['0.0.0.0/0', '::/0'] }],
        },
      ],
    });
  });

  it('refuses what the build cannot carry, naming the server and why', () => {
    expect(() => singBoxOutbound({ ...sampleServer('wireguard'), name: 'WG home' }, core, 'proxy')).toThrow(UnsupportedServerError);
    expect(() => singBoxOutbound({ ...sampleServer('wireguard'), name: 'WG home' }, core, 'proxy')).toThrow(/WG home.*built without with_wireguard/);
  });

  it('a chained server detours through its upstream; only the hop that dials the network carries the mark', () => {
    const config = singBoxCarrierConfig({ server: s('vmess', {}, 'ws'), via: sampleServer('anytls'), core, port: 20800, routingMark: 255 });
    const [proxy, via] = config.outbounds as Record<string, unknown>[];
    expect(proxy).toMatchObject({ tag: 'proxy', detour: 'proxy-via' });
    expect(proxy).not.toHaveProperty('routing_mark');
    expect(via).toMatchObject({ tag: 'proxy-via', type: 'anytls', routing_mark: 255 });
    expect(config.inbounds).toEqual([{ type: 'mixed', tag: 'carrier-in', listen: '127.0.0.1', listen_port: 20800 }]);
    expect(config.route).toEqual({ final: 'proxy' });
  });

  it('the prober routes each inbound to its own server and rejects the rest', () => {
    const config = singBoxProberConfig({ entries: [{ server: sampleServer('tuic'), port: 21000 }, { server: sampleServer('anytls'), port: 21001 }], core, listen: '127.0.0.1' });
    expect(config.route).toEqual({
      rules: [
        { inbound: ['probe-in-0'], action: 'route', outbound: 'probe-0' },
        { inbound: ['probe-in-1'], action: 'route', outbound: 'probe-1' },
        { action: 'reject' },
      ],
    });
    expect(() => singBoxProberConfig({ entries: [{ server: sampleServer('tuic'), port: 21000 }, { server: sampleServer('anytls'), port: 21000 }], core, listen: '127.0.0.1' })).toThrow(/used twice/);
  });
});
