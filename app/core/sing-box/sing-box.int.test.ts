/**
 * The sing-box built here (1.14.1) against the configs this app writes for it: its checker
 * refuses unknown fields, wrong types and outbounds missing from the build, so a config it
 * accepts uses the field names of this release.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Server } from '../../../shared/domain/server';
import type { CoreProfile } from '../capabilities';
import { detectCore } from '../detect';
import { testConfig } from '../run-core';
import { sampleServer } from '../samples';
import { unsupportedReason } from '../support';
import { labCore } from '../testing/cores';
import { singBoxCarrierConfig, singBoxProberConfig } from './config';

const tls = { type: 'tls', sni: 'example.com' } as const;
const reality = { type: 'reality', sni: 'www.example.com', publicKey: 'Z84J2IelR9ch3k8VtlVhhs5ycBUlXA7wHBWcBrjqnAw', shortId: '6ba8', fingerprint: 'firefox' } as const;
const s = (protocol: Server['protocol'], extra: Record<string, unknown> = {}, network: Server['transport']['network'] = 'tcp'): Server => sampleServer(protocol, network, extra as Partial<Server>);

const CARRIED: [string, Server][] = [
  ['TUIC v5 with bbr and quic relay', s('tuic', { congestionControl: 'bbr', udpRelayMode: 'quic', security: { ...tls, alpn: ['h3'], allowInsecure: true } })],
  ['AnyTLS with a uTLS fingerprint', s('anytls', { security: { ...tls, fingerprint: 'chrome' } })],
  ['Hysteria v1 with xplus obfuscation and hopping', s('hysteria', { obfs: 'xplus-secret', portHopping: '443,20000-30000' })],
  ['Hysteria2 with salamander and hopping', s('hysteria2', { obfs: { type: 'salamander', password: 'abcd' }, portHopping: '20000-30000', upMbps: 20, downMbps: 100 })],
  ['ShadowTLS v3 + shadowsocks 2022', s('shadowsocks', { method: '2022-blake3-aes-128-gcm', password: 'BwcHBwcHBwcHBwcHBwcHBw==', plugin: { name: 'shadow-tls', options: 'host=www.apple.com;password=p;version=3' } })],
  ['shadowsocks + obfs-local', s('shadowsocks', { method: 'chacha20-poly1305', plugin: { name: 'obfs-local', options: 'obfs=tls;obfs-host=a.example' } })],
  ['shadowsocks + v2ray-plugin', s('shadowsocks', { plugin: { name: 'v2ray-plugin', options: 'mode=websocket;tls;host=a.example;path=/ws' } })],
  ['VLESS REALITY Vision', s('vless', { security: reality, flow: 'xtls-rprx-vision' })],
  ['VLESS over gRPC with TLS', s('vless', { security: tls }, 'grpc')],
  ['vmess over WebSocket with early data', s('vmess', { security: tls, transport: { network: 'ws', path: '/ws?ed=2048', host: 'cdn.example' } }, 'ws')],
  ['vmess over HTTPUpgrade', s('vmess', {}, 'httpupgrade')],
  ['trojan over HTTP/2', s('trojan', { security: { ...tls, alpn: ['h2'] } }, 'h2')],
  ['vmess over QUIC', s('vmess', { security: tls }, 'quic')],
  ['socks with a user', s('socks', { username: 'u', password: 'p' })],
  ['https proxy', s('http', { security: tls, username: 'u', password: 'p' })],
  ['trojan with a pin it may skip', s('trojan', { security: { ...tls, pinnedCertSha256: ['a'.repeat(64)], allowInsecure: true } })],
];

let core: CoreProfile;
let dir: string;
beforeAll(async () => {
  core = await detectCore(labCore('sing-box'));
  dir = await mkdtemp(join(tmpdir(), 'sing-box-check-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

describe('sing-box 1.14.1 as built here', () => {
  it('is detected with its build tags, and its checker confirms what it carries and refutes what the build lacks', () => {
    expect(core).toMatchObject({ family: 'sing-box', version: '1.14.1' });
    expect(core.buildTags).toContain('with_quic');
    expect(core.buildTags).not.toContain('with_wireguard');
    for (const protocol of ['vmess', 'vless', 'trojan', 'shadowsocks', 'socks', 'http', 'tuic', 'anytls', 'hysteria', 'hysteria2'] as const) {
      expect(core.verified.confirmed, protocol).toContain(`protocol:${protocol}`);
    }
    expect(core.verified.refuted).toEqual(expect.arrayContaining(['protocol:wireguard', 'protocol:naive']));
    expect([...core.capabilities.networks].sort()).toEqual(['grpc', 'h2', 'httpupgrade', 'quic', 'tcp', 'ws']);
    expect(core.capabilities.securities.has('reality')).toBe(true);
    expect(unsupportedReason(sampleServer('wireguard'), core)).toBe('not supported by sing-box 1.14.1: WireGuard is not in this build (it was built without with_wireguard)');
  });

  it.each(CARRIED)('accepts the carrier config for %s', async (name, server) => {
    expect(unsupportedReason(server, core)).toBeNull();
    const config = singBoxCarrierConfig({ server, core, port: 20800, routingMark: 255 });
    const result = await testConfig(core, config, dir, `carrier-${CARRIED.findIndex(([n]) => n === name)}`);
    expect(result, JSON.stringify(config)).toMatchObject({ ok: true });
  });

  it('accepts a chained carrier (a WebSocket server dialled through an AnyTLS one) and the prober with every carried server', async () => {
    const chained = singBoxCarrierConfig({ server: CARRIED[9]![1], via: CARRIED[1]![1], core, port: 20801 });
    expect(await testConfig(core, chained, dir, 'chained')).toMatchObject({ ok: true });
    const prober = singBoxProberConfig({ entries: CARRIED.map(([, server], i) => ({ server, port: 21000 + i })), core, listen: '127.0.0.1', outboundMark: 255 });
    expect(await testConfig(core, prober, dir, 'prober')).toMatchObject({ ok: true });
  });

  it('refuses a config with a field it does not know, so an accepted one is no accident', async () => {
    const config = singBoxCarrierConfig({ server: CARRIED[0]![1], core, port: 20802 });
    (config.outbounds as Record<string, unknown>[])[0]!.congestion = 'bbr';
    const result = await testConfig(core, config, dir, 'unknown-field');
    expect(result.ok).toBe(false);
    expect(result.message).toContain('unknown field "congestion"');
  });
});
