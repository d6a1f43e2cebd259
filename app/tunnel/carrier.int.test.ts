/**
 * sing-box carrying what Xray cannot, for real: a sing-box-hosted TUIC v5 and AnyTLS server on
 * loopback (self-signed, started here), Xray as the main core with sing-box beside it, and a
 * loopback HTTP target. Traffic goes client → Xray's inbounds → Xray's SOCKS5 hop → sing-box →
 * the TUIC / AnyTLS server → the target.
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server as HttpServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ProxyAgent, request } from 'undici';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { TrafficSample } from '../../shared/domain/connection';
import type { Server } from '../../shared/domain/server';
import { type CoreProfile, detectCore } from '../core';
import { labCore } from '../core/testing/cores';
import { memoryLogger } from '../log/logger';
import { CarrierProber } from './carrier-prober';
import { type DialFailureEvent, type RestartedEvent, TunnelController } from './controller';
import { CoreProcess } from './core-process';
import { assertPortFree, freePorts } from './ports';
import { isRunning, processesOf, waitUntil } from './testing/processes';
import { selfSignedServerTls } from './testing/sing-box-tls';

const UUID = '2f6b0f0e-8d2c-4a51-9c35-7f0f3b1d8a11';
const BODY = randomBytes(1024 * 1024);

let dir: string;
let xray: CoreProfile;
let singBox: CoreProfile;
let target: HttpServer;
let targetPort: number;
let serverCore: CoreProcess;
let tuicPort: number;
let anytlsPort: number;
let deadPort: number;
let tunnel: TunnelController | null = null;

const base = (name: string, port: number) => ({ id: name, subscriptionId: 'carried', name, address: '127.0.0.1', port, transport: { network: 'tcp' as const } });
// The servers' certificate is self-signed for tuic.test; the links allow skipping verification.
const insecure = { type: 'tls' as const, sni: 'tuic.test', allowInsecure: true };
const tuic = (): Server => ({ ...base('TUIC here', tuicPort), protocol: 'tuic', uuid: UUID, password: 'tuic-pass', congestionControl: 'bbr', security: { ...insecure, alpn: ['h3'] } });
const anytls = (port = anytlsPort, name = 'AnyTLS here'): Server => ({ ...base(name, port), protocol: 'anytls', password: 'anytls-pass', security: { ...insecure, fingerprint: 'chrome' } });

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'steadfast-carrier-'));
  [xray, singBox] = await Promise.all([detectCore(labCore('xray')), detectCore(labCore('sing-box'))]);
  target = createServer((req, res) => {
    if (req.url === '/whoami') return res.end(req.socket.remoteAddress);
    res.setHeader('content-length', BODY.length);
    res.end(BODY);
  });
  await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve));
  targetPort = (target.address() as { port: number }).port;
  [tuicPort, anytlsPort, deadPort] = (await freePorts(3)) as [number, number, number];
  const tls = await selfSignedServerTls(dir, 'tuic.test');
  const serverConfig = {
    log: { level: 'warn' },
    inbounds: [
      { type: 'tuic', tag: 'tuic-in', listen: '127.0.0.1', listen_port: tuicPort, users: [{ name: 'u', uuid: UUID, password: 'tuic-pass' }], congestion_control: 'bbr', tls: { ...tls, alpn: ['h3'] } },
      { type: 'anytls', tag: 'anytls-in', listen: '127.0.0.1', listen_port: anytlsPort, users: [{ name: 'u', password: 'anytls-pass' }], tls },
    ],
    outbounds: [{ type: 'direct', tag: 'direct' }],
  };
  await writeFile(join(dir, 'servers.json'), JSON.stringify(serverConfig), { mode: 0o600 });
  serverCore = await CoreProcess.start({ core: singBox, configPath: join(dir, 'servers.json'), readyPort: anytlsPort, logger: memoryLogger().logger, logTag: 'LAB', label: 'sing-box servers' });
});

afterEach(async () => {
  await tunnel?.disconnect();
  tunnel = null;
});

afterAll(async () => {
  await serverCore?.stop();
  await new Promise((resolve) => target?.close(resolve));
  await rm(dir, { recursive: true, force: true });
});

async function newTunnel() {
  const [httpPort, socksPort] = (await freePorts(2)) as [number, number];
  const log = memoryLogger('debug');
  tunnel = new TunnelController({ core: xray, carriers: [singBox], runtimeDir: dir, logger: log.logger, httpPort, socksPort, statsIntervalMs: 200 });
  return { tunnel, log };
}

async function get(proxy: string, path: string): Promise<{ status: number; body: Buffer }> {
  const agent = new ProxyAgent(proxy);
  try {
    const response = await request(`http://127.0.0.1:${targetPort}${path}`, { dispatcher: agent, signal: AbortSignal.timeout(10_000) });
    return { status: response.statusCode, body: Buffer.from(await response.body.arrayBuffer()) };
  } finally {
    await agent.destroy();
  }
}

const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

describe('a server only sing-box runs, carried beside Xray', () => {
  it.each([['TUIC v5', tuic], ['AnyTLS', () => anytls()]])('%s: 1 MB byte-exact through the HTTP inbound, the SOCKS5 one too, and Xray counts the bytes', async (_name, server) => {
    const { tunnel, log } = await newTunnel();
    const samples: TrafficSample[] = [];
    tunnel.on('traffic', (s) => samples.push(s));
    const state = await tunnel.connect(server());
    expect(state.state).toBe('connected');
    expect(state.core).toMatchObject({ family: 'xray' });
    const viaHttp = await get(state.httpProxy!, '/bytes');
    expect(viaHttp.status).toBe(200);
    expect(sha(viaHttp.body)).toBe(sha(BODY));
    const viaSocks = await get(state.socksProxy!, '/whoami');
    expect(viaSocks.body.toString()).toBe('127.0.0.1');
    expect(await waitUntil(() => samples.reduce((sum, s) => sum + s.downBytes, 0) >= BODY.length, 5000)).toBe(true);
    expect(log.lines.some((l) => /carried by sing-box 1\.14\.1: not supported by Xray 26\.3\.27/.test(l))).toBe(true);
  });

  it('a dead carried server: the request fails at once and the dial failure is reported as refused, naming the server', async () => {
    const { tunnel } = await newTunnel();
    const failures: DialFailureEvent[] = [];
    tunnel.on('dialFailure', (f) => failures.push(f));
    const dead = anytls(deadPort, 'AnyTLS gone');
    const state = await tunnel.connect(dead);
    const began = Date.now();
    const answer = await get(state.httpProxy!, '/whoami').catch((error: unknown) => error);
    expect(answer instanceof Error || (answer as { status: number }).status >= 500).toBe(true);
    expect(Date.now() - began).toBeLessThan(3000);
    expect(await waitUntil(() => failures.length > 0, 3000)).toBe(true);
    expect(failures[0]).toMatchObject({ serverId: 'AnyTLS gone', kind: 'refused', upstream: false, address: `127.0.0.1:${deadPort}` });
  });

  it('the carrier and the main core stop together; a killed carrier brings both back', async () => {
    const { tunnel } = await newTunnel();
    const restarted: RestartedEvent[] = [];
    tunnel.on('restarted', (r) => restarted.push(r));
    await tunnel.connect(tuic());
    const carriers = () => processesOf(singBox.path, 'carrier.json');
    expect(carriers()).toHaveLength(1);
    process.kill(carriers()[0]!, 'SIGKILL');
    expect(await waitUntil(() => restarted.length > 0, 10_000)).toBe(true);
    expect(tunnel.state().state).toBe('connected');
    expect(sha((await get(tunnel.state().httpProxy!, '/bytes')).body)).toBe(sha(BODY));
    const pid = carriers()[0]!;
    await tunnel.disconnect();
    expect(await waitUntil(() => !isRunning(pid), 3000)).toBe(true);
  });

  it('a carrier that cannot start fails the connection and leaves no main core behind (the two start at once)', async () => {
    const [httpPort, socksPort] = (await freePorts(2)) as [number, number];
    // A carrier binary that exits at once, as a broken or quarantined sing-box would.
    tunnel = new TunnelController({ core: xray, carriers: [{ ...singBox, path: '/bin/false' }], runtimeDir: dir, logger: memoryLogger().logger, httpPort, socksPort });
    await expect(tunnel.connect(tuic())).rejects.toThrow(/carrier core/);
    expect(tunnel.state()).toMatchObject({ state: 'failed', serverId: 'TUIC here' });
    expect(processesOf(xray.path, 'tunnel.json')).toHaveLength(0);
    // The user's proxy ports are free again: the main core that started beside it was stopped.
    await expect(assertPortFree(httpPort, '127.0.0.1', 'HTTP proxy')).resolves.toBeUndefined();
  });
});

describe('the prober probes a carried server with sing-box', () => {
  it('TUIC and AnyTLS answer through the sing-box prober; a dead one is refused; the main prober keeps what Xray runs', async () => {
    const log = memoryLogger('debug');
    const prober = new CarrierProber({ core: xray, carriers: [singBox], runtimeDir: dir, logger: log.logger, rebuildDebounceMs: 20 });
    try {
      const socks: Server = { ...base('plain socks', targetPort), protocol: 'socks', security: { type: 'none' } };
      prober.setServers([tuic(), anytls(), anytls(deadPort, 'AnyTLS gone'), socks]);
      await prober.settled();
      const url = `http://127.0.0.1:${targetPort}/whoami`;
      for (const id of ['TUIC here', 'AnyTLS here']) {
        expect(prober.readiness(id)).toEqual({ ready: true });
        expect(await prober.probe(id, { url, timeoutMs: 5000, expectStatus: 200 })).toMatchObject({ ok: true });
      }
      const dead = await prober.probe('AnyTLS gone', { url, timeoutMs: 5000, expectStatus: 200 });
      expect(dead).toMatchObject({ ok: false, error: { kind: 'refused', message: expect.stringContaining('the server refused the connection') } });
      expect(prober.readiness('plain socks')).toEqual({ ready: true });
      expect(prober.main.readiness('TUIC here')).toMatchObject({ ready: false, reason: expect.stringContaining('carried by sing-box 1.14.1') });
    } finally {
      await prober.close();
    }
  });
});
