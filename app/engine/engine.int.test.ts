import { execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AppSnapshot } from '../../shared/ipc/contract';
import type { SettingsPatch } from '../../shared/settings';
import { type InProcessLab, labRouting, startLab } from '../../e2e/lab';
import { memoryLogger } from '../log/logger';
import { requestThroughProxy } from '../tunnel/proxy-request';
import { freePorts } from '../tunnel/ports';
import { createEngine, type Engine } from './engine';
import { waitFor } from '../testing/wait';

// The whole engine against the lab: subscriptions fetched from the lab's server, real cores for
// the tunnel and the prober, the monitor's results, and Auto failing over for real.

let lab: InProcessLab;
let engine: Engine;
let dataDir = '';
const log = memoryLogger('info');

const snapshot = (): Promise<AppSnapshot> => engine.getSnapshot({});

/** The exit IP the lab's IP-info stand-in sees through the local HTTP proxy, or null. */
async function exitIpThroughTunnel(timeoutMs = 3000): Promise<string | null> {
  const proxy = (await snapshot()).connection.httpProxy;
  if (!proxy) return null;
  const result = await requestThroughProxy({ proxyUrl: proxy, url: lab.info.ipinfoUrls['api.country.is'], timeoutMs, maxBytes: 4096 });
  return result.ok ? (JSON.parse(result.body.toString()) as { ip: string }).ip : null;
}

function labServerOf(address: string) {
  const found = lab.info.servers.find((s) => s.relay.startsWith(`${address}:`));
  if (!found) throw new Error(`no lab server at ${address}`);
  return found;
}

function coresRunningFrom(dir: string): number {
  try {
    return Number(execFileSync('pgrep', ['-c', '-f', join(dir, 'runtime')], { encoding: 'utf8' }).trim());
  } catch {
    return 0;
  }
}

beforeAll(async () => {
  lab = await startLab({ servers: 12, subscriptions: 3, seed: 3, latency: [20, 80] });
  dataDir = mkdtempSync(join(tmpdir(), 'engine-'));
  const [httpPort, socksPort] = await freePorts(2);
  engine = await createEngine({
    dataDir,
    logger: log.logger,
    watchNetwork: false,
    throughputUrl: (bytes) => `${lab.info.download}?bytes=${bytes}`,
    settingsOverrides: {
      httpPort,
      socksPort,
      logLevel: process.env.DEBUG_ENGINE ? 'debug' : 'info',
      monitor: { urls: [lab.info.target], ipInfoUrls: lab.info.ipinfoUrls, transferTestUrl: `${lab.info.bytes}/{bytes}`, debounceWindowMs: 200 },
      ...labRouting(lab.info),
    },
  });
  for (const subscription of lab.info.subscriptions) await engine.addSubscription({ url: subscription.url });
  if (process.env.DEBUG_ENGINE) engine.on('connection', (c) => log.logger.info('TEST', `connection ${c.state} ${c.serverId} ${c.error ?? ''}`));
}, 60_000);

afterAll(async () => {
  await engine?.stop();
  await lab?.stop();
});

describe('the engine against the lab', () => {
  it('loads the lab subscriptions in list order with every server', async () => {
    const s = await snapshot();
    expect(s.subscriptions.map((sub) => sub.servers.length)).toEqual([4, 4, 4]);
    expect(s.subscriptions.every((sub) => sub.lastError === null)).toBe(true);
    expect(s.core?.family).toBe('v2ray');
    expect(s.unsupported).toEqual({});
  });

  it('connects through a server and the target sees that server’s exit IP', async () => {
    const first = (await snapshot()).subscriptions[0]!.servers[0]!;
    const state = await engine.connect({ serverId: first.id });
    expect(state).toMatchObject({ state: 'connected', serverId: first.id });
    expect(state.httpProxy).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(await exitIpThroughTunnel()).toBe(labServerOf(first.address).exitIp);
  });

  it('routing: an invalid change is refused, naming the entry, and the previous routing stays; a valid one applies on the same server', async () => {
    const before = await snapshot();
    const serverId = before.connection.serverId;
    const exitIp = await exitIpThroughTunnel();
    expect(exitIp).not.toBe('127.0.0.1');
    await expect(engine.setSettings({ routing: { bypassLan: false, rules: [{ ip: ['127.0.0.0/33'], outbound: 'direct' }] } })).rejects.toThrow(
      'invalid setting routing, rule 1, ip 1: "127.0.0.0/33" has a prefix length outside 0-32',
    );
    // As a client that skipped the UI's checks would send it.
    const unknownOutbound = { routing: { rules: [{ ip: ['127.0.0.1'], outbound: 'elsewhere' }] } } as unknown as SettingsPatch;
    await expect(engine.setSettings(unknownOutbound)).rejects.toThrow('unknown outbound "elsewhere"');
    expect((await snapshot()).settings.routing).toEqual(before.settings.routing);
    expect(await exitIpThroughTunnel()).toBe(exitIp);

    // The lab target's address direct: the IP-info stand-in now sees this machine.
    await engine.setSettings({ routing: { bypassLan: false, rules: [{ ip: ['127.0.0.1/32'], outbound: 'direct' }] } });
    expect((await snapshot()).connection).toMatchObject({ state: 'connected', serverId });
    expect(await exitIpThroughTunnel()).toBe('127.0.0.1');
    await engine.setSettings(labRouting(lab.info));
    expect(await exitIpThroughTunnel()).toBe(exitIp);
  });

  it('a new HTTP port while connected: the core starts again on the same server and the proxy answers there', async () => {
    const before = await snapshot();
    const exitIp = await exitIpThroughTunnel();
    const [httpPort] = (await freePorts(1)) as [number];
    await engine.setSettings({ httpPort });
    const moved = await waitFor(
      'the proxy on the new port',
      async () => {
        const c = (await snapshot()).connection;
        return c.state === 'connected' && c.httpProxy === `http://127.0.0.1:${httpPort}` && c;
      },
      15_000,
    );
    expect(moved.serverId).toBe(before.connection.serverId);
    expect(await exitIpThroughTunnel()).toBe(exitIp);
  });

  it('tests every server: ping, exit IP and country as the lab set them', async () => {
    await engine.testAll({});
    const done = await waitFor(
      'every server with a ping and IP info',
      async () => {
        const s = await snapshot();
        return Object.values(s.statuses).filter((st) => st.delayMs !== null && st.ipInfo !== null).length === 12 && s;
      },
      45_000,
    );
    for (const server of done.subscriptions.flatMap((sub) => sub.servers)) {
      const status = done.statuses[server.id]!;
      const expected = labServerOf(server.address);
      expect(status.ipInfo).toMatchObject({ ip: expected.exitIp, countryCode: expected.country, fromCache: false });
      expect(status.fromCache).toBe(false);
      expect(status.delayMs).toBeGreaterThan(2 * expected.latencyMs * 0.8);
    }
  }, 60_000);

  it("TCP and ICMP on request reach the server's own address, not through it, and become its latest measurement", async () => {
    const server = (await snapshot()).subscriptions[0]!.servers[0]!;
    const tcp = await engine.measureDirect({ serverId: server.id, method: 'tcp' });
    expect(tcp.outcome).toMatchObject({ method: 'tcp', available: true, measurement: { method: 'tcp' } });
    // The lab's relay answers its TCP connect at once: the added latency is on the proxied path.
    expect(tcp.outcome.available && tcp.outcome.measurement.delayMs).toBeLessThan(labServerOf(server.address).latencyMs);
    expect(tcp.status.recent.at(-1)).toMatchObject({ method: 'tcp' });
    const icmp = await engine.measureDirect({ serverId: server.id, method: 'icmp' });
    // ping is set up by `npm run setup`; where the system refuses ICMP the reason is said instead.
    if (icmp.outcome.available) expect(icmp.outcome.measurement).toMatchObject({ method: 'icmp', delayMs: expect.any(Number) });
    else expect(icmp.outcome.reason).toMatch(/ping/);
    await expect(engine.measureDirect({ serverId: 'no-such-server', method: 'tcp' })).rejects.toThrow(/no server with id/);
  });

  it('Auto leaves a blackholed server for another of its subscription and traffic flows again', async () => {
    const subscriptionA = (await snapshot()).subscriptions[0]!;
    await engine.setAuto({ subscriptionId: subscriptionA.id });
    await engine.connect({});
    // Auto's pick once the reconnect it asked for has settled.
    await new Promise((r) => setTimeout(r, 1000));
    const onServer = await waitFor('Auto connected', async () => {
      const s = await snapshot();
      return s.connection.state === 'connected' && s.connection.serverId;
    }, 15_000);
    const current = subscriptionA.servers.find((s) => s.id === onServer)!;
    await lab.setFault(labServerOf(current.address).id, { fault: 'blackhole' });

    // Keep sending, as a user would: the stall is what Auto notices.
    const started = Date.now();
    let exitIp: string | null = null;
    while (Date.now() - started < 30_000) {
      exitIp = await exitIpThroughTunnel(1500);
      if (exitIp && exitIp !== labServerOf(current.address).exitIp) break;
      // Between tries, as a user's browser would: while the tunnel restarts there is no proxy
      // address and the loop would otherwise spin on promises alone and starve the event loop.
      await new Promise((r) => setTimeout(r, 100));
    }
    const recoveredMs = Date.now() - started;
    const after = await snapshot();
    if (process.env.DEBUG_ENGINE) console.log(log.lines.filter((l) => / (AUTO|TUNNEL|ENGINE|TEST) /.test(l)).join('\n'), recoveredMs);
    expect(after.connection.serverId).not.toBe(current.id);
    expect(subscriptionA.servers.map((s) => s.id)).toContain(after.connection.serverId);
    expect(exitIp).toBe(labServerOf(subscriptionA.servers.find((s) => s.id === after.connection.serverId)!.address).exitIp);
    expect(after.auto.timeline.some((e) => e.type === 'switch' && e.from === current.id && e.reason === 'current-silent')).toBe(true);
    expect(log.lines.some((l) => / AUTO /.test(l) && /switch/.test(l))).toBe(true);
    // Stall threshold 5 s, then a check of at most the probe timeout; well under the 30 s loop.
    expect(recoveredMs).toBeLessThan(15_000);
    await lab.setFault(labServerOf(current.address).id, { fault: 'none' });
  }, 60_000);

  it('keeps credentials out of its log', () => {
    const uuid = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/i;
    expect(log.lines.filter((l) => uuid.test(l))).toEqual([]);
  });

  it('stops every core it started', async () => {
    expect(coresRunningFrom(dataDir)).toBeGreaterThan(0);
    await engine.stop();
    await waitFor('no core left', async () => coresRunningFrom(dataDir) === 0, 5000);
  });
});
