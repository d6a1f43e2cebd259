/**
 * Routing for real through each client core (v2ray 4.34 and Xray) against the lab: direct, block,
 * hosts with each region preset, the LAN bypass, direct bytes kept apart from the server's, and no
 * DNS leak. The same checks run on every core; where the cores differ (v2ray 4.34 has no DNS
 * `skipFallback`), the test says what each must do. The lab lives on loopback, which bypassLan
 * sends direct, so these tests turn it off unless they test it.
 */
import { createServer, request as httpRequest, type Server as HttpServer } from 'node:http';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ProxyAgent, request } from 'undici';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type InProcessLab, startLab } from '../../e2e/lab';
import { DnsResolverStandIn } from '../../e2e/lab/dns-resolver';
import type { TrafficSample } from '../../shared/domain/connection';
import type { Server } from '../../shared/domain/server';
import { dnsSettingsSchema, routingSettingsSchema } from '../../shared/routing';
import { type CoreProfile, detectCore } from '../core';
import { type LabCoreName, labCore } from '../core/testing/cores';
import { memoryLogger } from '../log/logger';
import { TunnelController } from '../tunnel/controller';
import { freePorts } from '../tunnel/ports';
import { serversFromLinks } from '../tunnel/testing/lab-servers';
import { routingPlan } from './policy/plan';
import { shippedRegions } from './testing/shipped-regions';

/** A listener outside the rules' usual reach: it answers with the address the request came from. */
const DIRECT_HOST = '127.0.0.200';
const BODY_BYTES = 256 * 1024;

let lab: InProcessLab;
let server: Server;
let exitIp: string;
/**
 * The client cores every check runs on. `sing-box` is the server carried by sing-box behind Xray,
 * as the app runs a server Xray cannot carry: the rules, the hosts and the DNS module stay Xray's,
 * and what goes through the server goes through sing-box (UDP too, for the DNS module's queries).
 */
const CORES = ['v2ray', 'xray', 'sing-box'] as const satisfies readonly LabCoreName[];
const cores = new Map<LabCoreName, CoreProfile>();
let runtimeDir: string;
let listener: HttpServer;
let listenerPort: number;
let tunnel: TunnelController | null = null;
const stopAfter: (() => Promise<void>)[] = [];

beforeAll(async () => {
  lab = await startLab({ servers: 4, latency: [10, 20] });
  // A1 is VMess over TCP: it carries UDP too (the DNS module's queries through the server).
  const first = lab.info.servers[0]!;
  server = serversFromLinks([first.shareLink])[0]!;
  exitIp = first.exitIp;
  for (const name of CORES) cores.set(name, await detectCore(labCore(name)));
  runtimeDir = await mkdtemp(join(tmpdir(), 'steadfast-routing-'));
  listener = createServer((req, res) => {
    res.setHeader('content-type', 'text/plain');
    res.end(`${req.socket.remoteAddress}\n${'x'.repeat(req.url === '/big' ? BODY_BYTES : 0)}`);
  });
  await new Promise<void>((resolve) => listener.listen(0, DIRECT_HOST, resolve));
  listenerPort = (listener.address() as { port: number }).port;
});

afterEach(async () => {
  await tunnel?.disconnect();
  tunnel = null;
  for (const stop of stopAfter.splice(0)) await stop();
});

afterAll(async () => {
  await new Promise((resolve) => listener?.close(resolve));
  await lab?.stop();
  await rm(runtimeDir, { recursive: true, force: true });
});

/** The tunnel's cores for a column: sing-box carries the server behind Xray, whose own protocols are taken away but SOCKS (its hop to the carrier). */
function tunnelCores(coreName: LabCoreName): { core: CoreProfile; carriers: CoreProfile[] } {
  if (coreName !== 'sing-box') return { core: cores.get(coreName)!, carriers: [] };
  const xray = cores.get('xray')!;
  return { core: { ...xray, capabilities: { ...xray.capabilities, protocols: new Set(['socks']) } }, carriers: [cores.get('sing-box')!] };
}

async function connectWith(coreName: LabCoreName, routing: unknown, dns: unknown = {}) {
  const { core, carriers } = tunnelCores(coreName);
  const plan = routingPlan(routingSettingsSchema.parse(routing), dnsSettingsSchema.parse(dns), shippedRegions());
  const [httpPort, socksPort] = (await freePorts(2)) as [number, number];
  const log = memoryLogger('debug');
  tunnel = new TunnelController({ core, carriers, runtimeDir, logger: log.logger, httpPort, socksPort, routing: plan.routing, statsIntervalMs: 100 });
  const samples: TrafficSample[] = [];
  tunnel.on('traffic', (s) => samples.push(s));
  const state = await tunnel.connect(server);
  return { proxy: state.httpProxy as string, samples, log };
}

async function get(proxy: string, url: string): Promise<{ status: number; body: string }> {
  const agent = new ProxyAgent(proxy);
  try {
    const response = await request(url, { dispatcher: agent, signal: AbortSignal.timeout(8000) });
    return { status: response.statusCode, body: await response.body.text() };
  } finally {
    await agent.destroy();
  }
}

/** A GET sent to the HTTP proxy as a plain proxied request (absolute URL), not through CONNECT. */
function plainGet(proxy: string, url: string): Promise<number> {
  const { hostname, port } = new URL(proxy);
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: hostname, port, path: url, headers: { host: new URL(url).host }, timeout: 8000 }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('timeout', () => req.destroy(new Error('timed out')));
    req.on('error', reject);
    req.end();
  });
}

const firstLine = (body: string) => body.split('\n')[0];

/**
 * Names each region preset sends direct, as a user there would visit them: under its country
 * TLD, under its TLD in the country's script (sent as xn--), and one of its sourced services.
 */
const PRESETS = [
  { preset: 'ir', domestic: ['shop.ir', 'news.xn--mgba3a4f16a', 'www.digikala.com'] },
  { preset: 'ru', domestic: ['shop.ru', 'news.xn--p1ai', 'mail.yandex.com'] },
  { preset: 'cn', domestic: ['shop.cn', 'news.xn--fiqs8s', 'www.baidu.com'] },
] as const;
const isDomestic = (name: string) => PRESETS.some((p) => p.domestic.some((d) => name === d));
const direct = `http://${DIRECT_HOST}`;
const sum = (samples: TrafficSample[], pick: (s: TrafficSample) => number) => samples.reduce((n, s) => n + pick(s), 0);
/** Two stats intervals, so the samples hold what the request moved. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 350));

describe.each(CORES)('routing through %s', (coreName) => {
  it('a direct rule: the listener sees the user’s own address, the IP-info stand-in still sees the server’s exit; direct bytes are not the server’s', async () => {
    const { proxy, samples } = await connectWith(coreName, { bypassLan: false, rules: [{ ip: [`${DIRECT_HOST}/32`], outbound: 'direct' }] });
    await settle();
    samples.length = 0;
    const big = await get(proxy, `${direct}:${listenerPort}/big`);
    expect(firstLine(big.body)).toBe('127.0.0.1');
    await settle();
    expect(sum(samples, (s) => s.direct?.downBytes ?? 0)).toBeGreaterThanOrEqual(BODY_BYTES);
    // Auto and the monitor read only these: a direct download is no use of the server.
    expect(sum(samples, (s) => s.upBytes + s.downBytes)).toBe(0);

    const ipinfo = await get(proxy, lab.info.ipinfo);
    expect(JSON.parse(ipinfo.body).ip).toBe(exitIp);
    await settle();
    expect(sum(samples, (s) => s.downBytes)).toBeGreaterThan(0);
  });

  it('block fails at once: a plain request gets the core’s own 403, a tunnelled one an error (no waiting for a timeout)', async () => {
    const { proxy } = await connectWith(coreName, { bypassLan: false, rules: [{ domain: [`full:ads.${lab.info.zone}`], outbound: 'block' }] });
    expect(await plainGet(proxy, `http://ads.${lab.info.zone}:${listenerPort}/`)).toBe(403);
    const tunnelled = await get(proxy, `http://ads.${lab.info.zone}:${listenerPort}/`).then(
      () => null,
      (error: Error) => error,
    );
    expect(tunnelled).toBeInstanceOf(Error);
    expect(tunnelled?.name).not.toMatch(/Timeout|Abort/);
    // A neighbour the rule does not name goes through the server and is resolved there.
    const target = new URL(lab.info.target);
    expect((await get(proxy, `http://www.${lab.info.zone}:${target.port}/generate_204`)).status).toBe(204);
  });

  it.each(PRESETS)('hosts with preset $preset: a domestic name mapped to the listener goes direct', async ({ preset, domestic }) => {
    const bank = `bank.${domestic[0].split('.').at(-1)}`;
    const { proxy, samples } = await connectWith(coreName, { preset, bypassLan: false, hosts: { [bank]: DIRECT_HOST } });
    const answer = await get(proxy, `http://${bank}:${listenerPort}/big`);
    expect(firstLine(answer.body)).toBe('127.0.0.1');
    await settle();
    expect(sum(samples, (s) => s.direct?.downBytes ?? 0)).toBeGreaterThanOrEqual(BODY_BYTES);
  });

  it('bypassLan: on, the listener is reached directly without a rule; off, through the server', async () => {
    const on = await connectWith(coreName, { bypassLan: true });
    expect(firstLine((await get(on.proxy, `${direct}:${listenerPort}/`)).body)).toBe('127.0.0.1');
    await tunnel?.disconnect();
    const off = await connectWith(coreName, { bypassLan: false });
    expect(firstLine((await get(off.proxy, `${direct}:${listenerPort}/`)).body)).toBe(exitIp);
  });
});

describe.each(CORES)('no DNS leak on %s', (coreName) => {
  /**
   * The presets' domestic names lead to the listener; any other name to a documentation address
   * nobody dials; `slow.*` is never answered, as a resolver behind a bad link: the moment a core
   * without skipFallback falls back to its other resolvers.
   */
  const zone = (name: string) => (name.startsWith('slow.') ? 'silent' : isDomestic(name) ? DIRECT_HOST : '198.51.100.7');

  async function session(preset: (typeof PRESETS)[number], strategy: 'AsIs' | 'IPIfNonMatch') {
    const isp = await new DnsResolverStandIn(zone).start();
    const publicResolver = await new DnsResolverStandIn(zone).start();
    stopAfter.push(() => isp.stop(), () => publicResolver.stop());
    const { proxy } = await connectWith(
      coreName,
      { preset: preset.preset, bypassLan: false, domainStrategy: strategy },
      { remote: publicResolver.address(), domestic: isp.address() },
    );
    const target = new URL(lab.info.target);
    for (const name of preset.domestic) expect(firstLine((await get(proxy, `http://${name}:${listenerPort}/`)).body), name).toBe('127.0.0.1');
    for (const name of ['www', 'mail', 'slow']) expect((await get(proxy, `http://${name}.${lab.info.zone}:${target.port}/generate_204`)).status).toBe(204);
    return { isp, publicResolver };
  }

  it.each(PRESETS)('AsIs, preset $preset: the ISP’s resolver hears only the direct names; proxied names leave unresolved', async (preset) => {
    const { isp, publicResolver } = await session(preset, 'AsIs');
    expect(isp.namesFrom()).toEqual([...preset.domestic].sort());
    expect(publicResolver.namesFrom().filter((n) => n.endsWith(lab.info.zone))).toEqual([]);
  });

  it.each(PRESETS)('IPIfNonMatch, preset $preset: proxied names are resolved only through the server', async (preset) => {
    const { core } = tunnelCores(coreName);
    const { isp, publicResolver } = await session(preset, 'IPIfNonMatch');
    // Everything the public resolver heard came through the server's exit, none from this machine.
    expect(publicResolver.namesFrom((from) => from !== exitIp)).toEqual([]);
    expect(publicResolver.namesFrom((from) => from === exitIp)).toEqual(expect.arrayContaining([`www.${lab.info.zone}`, `slow.${lab.info.zone}`]));
    if (core.capabilities.features.has('dns-skip-fallback')) {
      // The domestic resolver with skipFallback: asked about the direct names, never a proxied one,
      // not even when the remote resolver stays silent (slow.*).
      expect(isp.namesFrom()).toEqual([...preset.domestic].sort());
    } else {
      // v2ray 4.34 would fall back to every resolver: the ISP's is left out, and the app says so.
      expect(isp.questions).toEqual([]);
    }
  });
});
