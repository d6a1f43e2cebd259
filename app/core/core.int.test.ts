/**
 * The core adapter against Debian's real v2ray 4.34: detection, the binary's own config test
 * for every combination the profile claims, and generated configs carrying real traffic through
 * real v2ray server inbounds on loopback.
 */
import { execFileSync } from 'node:child_process';
import type { AddressInfo } from 'node:net';
import { createServer, type Server as HttpServer } from 'node:http';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Server } from '../../shared/domain/server';
import { type CoreProfile, detectCore, outboundFor, proberConfig, tunnelConfig, writeConfigFile } from './index';
import { curlThrough, freePorts, startCore, waitForPort } from './int-support';
import { testConfig } from './run-core';
import { sampleServer } from './samples';

const V2RAY = '/usr/bin/v2ray';
let core: CoreProfile;
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'core-int-'));
  core = await detectCore(V2RAY);
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('detectCore with the real binary', () => {
  it('identifies v2ray 4.34.0 and what it verifiably runs, well under 2 s', async () => {
    const started = performance.now();
    // A copy has its own (path, mtime, size) key, so this measures a fresh, uncached detection.
    const copy = join(dir, 'v2ray-copy');
    execFileSync('cp', [V2RAY, copy]);
    const fresh = await detectCore(copy);
    const elapsedMs = performance.now() - started;
    console.log(JSON.stringify({ detect_uncached_ms: Math.round(elapsedMs) }));
    expect(elapsedMs).toBeLessThan(2000);
    for (const profile of [core, fresh]) {
      expect(profile.family).toBe('v2ray');
      expect(profile.version).toBe('4.34.0');
      expect([...profile.capabilities.protocols].sort()).toEqual(['http', 'shadowsocks', 'socks', 'trojan', 'vless', 'vmess']);
      expect([...profile.capabilities.networks].sort()).toEqual(['h2', 'kcp', 'quic', 'tcp', 'ws']);
      expect([...profile.capabilities.securities].sort()).toEqual(['none', 'tls']);
      expect([...profile.capabilities.shadowsocksMethods].sort()).toEqual(['aes-128-gcm', 'aes-256-gcm', 'chacha20-ietf-poly1305', 'chacha20-poly1305', 'none', 'plain']);
      expect(profile.capabilities.features.has('ss2022')).toBe(false);
      expect(profile.verified.confirmed).toEqual(expect.arrayContaining(['protocol:vless', 'protocol:trojan', 'network:quic', 'shadowsocks:aes-256-gcm']));
      expect(profile.verified.refuted).toEqual(expect.arrayContaining(['protocol:wireguard', 'network:grpc', 'network:httpupgrade', 'shadowsocks:2022-blake3-aes-128-gcm', 'shadowsocks:aes-256-cfb']));
    }
  });

  it('answers from the cache the second time', async () => {
    const started = performance.now();
    expect(await detectCore(V2RAY)).toBe(core);
    expect(performance.now() - started).toBeLessThan(50);
  });

  it('rejects a file that is not a core, saying what it printed', async () => {
    await expect(detectCore('/bin/true')).rejects.toThrow('/bin/true is not a core this app knows');
  });
});

describe('every config the profile claims passes `v2ray -test`', () => {
  function everyCombination(): Server[] {
    const servers: Server[] = [];
    const caps = core.capabilities;
    for (const protocol of caps.protocols) {
      for (const network of caps.networks) {
        for (const securityType of caps.securities) {
          const security = securityType === 'tls' ? { type: securityType, sni: 'example.com', alpn: ['h2', 'http/1.1'], allowInsecure: true, fingerprint: 'chrome' } : { type: securityType };
          servers.push(sampleServer(protocol, network, { security, address: servers.length % 2 ? '2001:db8::1' : 'server.example' }));
        }
      }
    }
    for (const method of caps.shadowsocksMethods) servers.push(sampleServer('shadowsocks', 'tcp', { method } as Partial<Server>));
    for (const cipher of ['auto', 'aes-128-gcm', 'chacha20-poly1305', 'none', 'zero']) servers.push(sampleServer('vmess', 'tcp', { cipher, alterId: 64 } as Partial<Server>));
    for (const headerType of ['none', 'srtp', 'utp', 'wechat-video', 'dtls', 'wireguard']) {
      servers.push(sampleServer('vmess', 'kcp', { transport: { network: 'kcp', headerType, seed: 'seed' } }));
      servers.push(sampleServer('vmess', 'quic', { transport: { network: 'quic', headerType, quicSecurity: 'chacha20-poly1305', quicKey: 'k' } }));
    }
    servers.push(sampleServer('vmess', 'tcp', { transport: { network: 'tcp', headerType: 'http', host: 'a.example,b.example', path: '/p' } }));
    servers.push(sampleServer('vmess', 'ws', { transport: { network: 'ws', path: '/ws?ed=2048', host: 'cdn.example' } }));
    servers.push(sampleServer('shadowsocks', 'tcp', { plugin: { name: 'v2ray-plugin', options: 'tls;host=cdn.example;path=/ss' } } as Partial<Server>));
    servers.push(sampleServer('socks', 'tcp', { username: 'u', password: 'p' } as Partial<Server>));
    servers.push(sampleServer('http', 'tcp', { username: 'u', password: 'p', security: { type: 'tls', sni: 'proxy.example' } } as Partial<Server>));
    return servers;
  }

  it('each combination on its own', async () => {
    const servers = everyCombination();
    expect(servers.length).toBeGreaterThan(60);
    const failures: string[] = [];
    for (const [i, server] of servers.entries()) {
      const result = await testConfig(core, { outbounds: [outboundFor(server, core, 'proxy')] }, dir, `combo-${i}`);
      if (!result.ok) failures.push(`${server.name} ${JSON.stringify(server.transport)} ${server.security.type}: ${result.message}`);
    }
    expect(failures).toEqual([]);
  });

  it('tunnel configs, plain and chained', async () => {
    const base = { listen: '127.0.0.1', httpPort: 10809, socksPort: 10808, apiPort: 10085, core };
    const via = { ...sampleServer('trojan', 'tcp', { security: { type: 'tls', sni: 'up.example' } }), name: 'upstream' } as Server;
    for (const config of [tunnelConfig({ ...base, server: sampleServer('vless', 'ws', { security: { type: 'tls' } }) }), tunnelConfig({ ...base, server: sampleServer('vmess'), via })]) {
      expect(await testConfig(core, config, dir, 'tunnel')).toEqual({ ok: true, message: 'Configuration OK.' });
    }
  });
});

describe('generated configs carry traffic through real v2ray servers', () => {
  const uuid = '0b3f5b5e-7a52-4f4e-9b0c-2f1c4c8e9a11';
  let target: HttpServer;
  let targetUrl: string;
  const stops: (() => Promise<void>)[] = [];

  beforeAll(async () => {
    target = createServer((_req, res) => {
      res.writeHead(204);
      res.end();
    });
    await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve));
    targetUrl = `http://127.0.0.1:${(target.address() as AddressInfo).port}/generate_204`;
  });
  afterAll(async () => {
    await Promise.all(stops.map((stop) => stop()));
    await new Promise((resolve) => target.close(resolve));
  });

  /** One v2ray "server" process with an inbound per case, and the client entry that reaches it. */
  async function startServers(): Promise<{ label: string; server: Server }[]> {
    const cert = JSON.parse(execFileSync('v2ctl', ['cert', '--domain=example.test', '--expire=24h'], { encoding: 'utf8' })) as { certificate: string[]; key: string[] };
    const tlsIn = { security: 'tls', tlsSettings: { certificates: [cert] } };
    const ports = await freePorts(12);
    const at = (i: number): number => ports[i]!;
    const tls = { type: 'tls' as const, sni: 'example.test', allowInsecure: true };
    const cases: { label: string; inbound: object; server: Server }[] = [
      { label: 'vmess tcp', inbound: { protocol: 'vmess', settings: { clients: [{ id: uuid, alterId: 0 }] } }, server: sampleServer('vmess') },
      { label: 'vless tcp', inbound: { protocol: 'vless', settings: { clients: [{ id: uuid }], decryption: 'none' } }, server: sampleServer('vless') },
      { label: 'trojan tls', inbound: { protocol: 'trojan', settings: { clients: [{ password: 'sample-password' }] }, streamSettings: tlsIn }, server: sampleServer('trojan', 'tcp', { security: tls }) },
      { label: 'shadowsocks aes-256-gcm', inbound: { protocol: 'shadowsocks', settings: { method: 'aes-256-gcm', password: 'sample-password' } }, server: sampleServer('shadowsocks', 'tcp', { method: 'aes-256-gcm' } as Partial<Server>) },
      { label: 'socks with auth', inbound: { protocol: 'socks', settings: { auth: 'password', accounts: [{ user: 'u', pass: 'p' }] } }, server: sampleServer('socks', 'tcp', { username: 'u', password: 'p' } as Partial<Server>) },
      { label: 'http with auth over TLS', inbound: { protocol: 'http', settings: { accounts: [{ user: 'u', pass: 'p' }] }, streamSettings: tlsIn }, server: sampleServer('http', 'tcp', { username: 'u', password: 'p', security: tls } as Partial<Server>) },
      { label: 'vmess ws + Host', inbound: { protocol: 'vmess', settings: { clients: [{ id: uuid }] }, streamSettings: { network: 'ws', wsSettings: { path: '/ws' } } }, server: sampleServer('vmess', 'ws', { transport: { network: 'ws', path: '/ws?ed=2048', host: 'cdn.example' } }) },
      { label: 'vless ws + tls', inbound: { protocol: 'vless', settings: { clients: [{ id: uuid }], decryption: 'none' }, streamSettings: { network: 'ws', wsSettings: { path: '/v' }, ...tlsIn } }, server: sampleServer('vless', 'ws', { transport: { network: 'ws', path: '/v' }, security: tls }) },
      { label: 'vmess h2 + tls', inbound: { protocol: 'vmess', settings: { clients: [{ id: uuid }] }, streamSettings: { network: 'http', httpSettings: { path: '/h2', host: ['example.test'] }, ...tlsIn } }, server: sampleServer('vmess', 'h2', { transport: { network: 'h2', path: '/h2', host: 'example.test' }, security: tls }) },
      { label: 'vmess tcp http header', inbound: { protocol: 'vmess', settings: { clients: [{ id: uuid }] }, streamSettings: { network: 'tcp', tcpSettings: { header: { type: 'http', request: { path: ['/obf'] } } } } }, server: sampleServer('vmess', 'tcp', { transport: { network: 'tcp', headerType: 'http', path: '/obf', host: 'cdn.example' } }) },
      { label: 'vmess kcp wechat-video', inbound: { protocol: 'vmess', settings: { clients: [{ id: uuid }] }, streamSettings: { network: 'kcp', kcpSettings: { header: { type: 'wechat-video' }, seed: 'seed' } } }, server: sampleServer('vmess', 'kcp', { transport: { network: 'kcp', headerType: 'wechat-video', seed: 'seed' } }) },
      { label: 'shadowsocks quic', inbound: { protocol: 'shadowsocks', settings: { method: 'chacha20-poly1305', password: 'sample-password' }, streamSettings: { network: 'quic', quicSettings: { security: 'aes-128-gcm', key: 'k', header: { type: 'srtp' } } } }, server: sampleServer('shadowsocks', 'quic', { method: 'chacha20-poly1305', transport: { network: 'quic', quicSecurity: 'aes-128-gcm', quicKey: 'k', headerType: 'srtp' } } as Partial<Server>) },
    ];
    const serverConfig = {
      log: { loglevel: 'warning', access: 'none' },
      inbounds: cases.map((c, i) => ({ ...c.inbound, listen: '127.0.0.1', port: at(i), tag: `in-${i}` })),
      outbounds: [{ protocol: 'freedom', settings: {} }],
    };
    const file = await writeConfigFile(dir, 'servers', serverConfig);
    const servers = startCore(V2RAY, ['-config', file]);
    stops.push(servers.stop);
    // kcp/quic are UDP: wait on a TCP inbound, then give UDP listeners the same moment.
    await waitForPort(at(0));
    return cases.map((c, i) => ({ label: c.label, server: { ...c.server, address: '127.0.0.1', port: at(i), name: c.label } as Server }));
  }

  it('through the prober: each of 12 protocol × transport × security entries answers 204 on its own inbound', async () => {
    const entries = await startServers();
    const probePorts = await freePorts(entries.length);
    const config = proberConfig({ entries: entries.map((e, i) => ({ server: e.server, port: probePorts[i]! })), core, listen: '127.0.0.1' });
    const file = await writeConfigFile(dir, 'prober', config);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    const prober = startCore(V2RAY, ['-config', file]);
    stops.push(prober.stop);
    await waitForPort(probePorts[0]!);
    const results = await Promise.all(entries.map(async (e, i) => [e.label, await curlThrough(`http://127.0.0.1:${probePorts[i]}`, targetUrl)]));
    expect(Object.fromEntries(results)).toEqual(Object.fromEntries(entries.map((e) => [e.label, '204'])));
    // Never log a config's content: the core's own output must not echo credentials either.
    expect(prober.output()).not.toContain(uuid);
    expect(prober.output()).not.toContain('sample-password');
  });

  it('the tunnel starts, its HTTP, SOCKS5 and API inbounds accept on 127.0.0.1, traffic flows both ways', async () => {
    const entries = await startServers();
    const [httpPort, socksPort, apiPort] = (await freePorts(3)) as [number, number, number];
    const config = tunnelConfig({ server: entries[0]!.server, core, listen: '127.0.0.1', httpPort, socksPort, apiPort, logLevel: 'warning' });
    const file = await writeConfigFile(dir, 'tunnel', config);
    const started = performance.now();
    const tunnel = startCore(V2RAY, ['-config', file]);
    stops.push(tunnel.stop);
    await waitForPort(httpPort);
    const startMs = performance.now() - started;
    await waitForPort(socksPort);
    await waitForPort(apiPort);
    console.log(JSON.stringify({ tunnel_start_to_http_inbound_ms: Math.round(startMs) }));
    expect(await curlThrough(`http://127.0.0.1:${httpPort}`, targetUrl)).toBe('204');
    expect(await curlThrough(`socks5h://127.0.0.1:${socksPort}`, targetUrl)).toBe('204');
    await tunnel.stop();
    expect(tunnel.child.exitCode !== null || tunnel.child.signalCode !== null).toBe(true);
  });
});
