/**
 * The monitor against the lab: real v2ray servers behind fault relays, the real prober (a second
 * v2ray hosting every server), the lab's IP-info stand-ins answering from each server's exit
 * address, and the lab's counters as the witness of what was sent.
 */
import { mkdtemp } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startLab } from '../../e2e/lab';
import { IP_INFO_SERVICES, type IpInfoService } from '../../shared/settings';
import { waitFor } from '../testing/wait';
import { monitorCacheFile } from './cache';
import { HttpDirectCheck } from './direct-check';
import { labMonitors } from './testing/lab-monitors';

const ALL_SERVICES: IpInfoService[] = [...IP_INFO_SERVICES, 'cloudflare-trace'];

const world = labMonitors({
  start: () => startLab({ servers: 8, latency: [20, 60] }),
  settings: (lab) => ({
    urls: [lab.info.target],
    ipInfoUrls: lab.info.ipinfoUrls,
    urlTestTimeoutMs: 3000,
    intervalMs: 3600_000,
    transferTestUrl: `${lab.info.bytes}/{bytes}`,
    // Off unless a test is about it: the others count delay tests.
    transferTestBytes: 0,
  }),
  options: { directCheck: new HttpDirectCheck() },
  reset: async (lab) => {
    for (const service of ALL_SERVICES) await lab.setIpInfo(service, 'ok');
    await lab.setNetwork('online');
  },
});
const newMonitor = world.newMonitor;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const totalConnections = async () => Object.values((await world.lab.counters()).servers).reduce((sum, s) => sum + s.connections, 0);

describe('monitor against the lab', () => {
  it.each(ALL_SERVICES)('finds exit IP and country through a real server when only %s answers (all others 429)', async (service) => {
    for (const other of ALL_SERVICES) await world.lab.setIpInfo(other, other === service ? 'ok' : '429');
    const server = world.servers[service.length % world.servers.length]!;
    const { monitor } = newMonitor();
    await monitor.testNow([server.id], 'user');
    const info = await waitFor(`IP info of ${server.name}`, () => monitor.status(server.id).ipInfo, 20_000);
    expect(info).toMatchObject({ ip: world.labOf(server).exitIp, countryCode: world.labOf(server).country, source: service, fromCache: false });
    if (service !== 'api.country.is' && service !== 'cloudflare-trace') expect(info.asn).toMatch(/^AS\d+$/);
  });

  it('with every service failing but the Cloudflare trace, the fallback gives IP and country', async () => {
    for (const other of ALL_SERVICES) await world.lab.setIpInfo(other, other === 'cloudflare-trace' ? 'ok' : 'timeout');
    const server = world.servers[0]!;
    const { monitor } = newMonitor({ urlTestTimeoutMs: 1000 });
    await monitor.testNow([server.id], 'user');
    const info = await waitFor('the fallback IP info', () => monitor.status(server.id).ipInfo, 30_000);
    expect(info).toMatchObject({ ip: world.labOf(server).exitIp, countryCode: world.labOf(server).country, source: 'cloudflare-trace' });
  });

  it('after idle_timeout without traffic the lab sees no further probes; the next traffic restarts testing', async () => {
    const { monitor } = newMonitor({ intervalMs: 500, idleTimeoutMs: 2000 }, { ipInfo: false });
    await monitor.start();
    await waitFor('idle', () => !monitor.isActive(), 10_000);
    await sleep(500); // let tests already in flight land
    const atIdle = await totalConnections();
    await sleep(3000);
    expect(await totalConnections()).toBe(atIdle);
    monitor.trafficSeen();
    await sleep(1500);
    expect(await totalConnections()).toBeGreaterThanOrEqual(atIdle + world.servers.length);
  });

  it('restarts from the cache: pings and countries at once, marked from cache, then fresh ones', async () => {
    const cacheDir = await mkdtemp(join(world.dir, 'cache-'));
    const first = newMonitor({}, { cacheFile: monitorCacheFile(cacheDir) }).monitor;
    await first.start();
    await waitFor('every IP info', () => first.snapshot().every((s) => s.ipInfo && s.delayMs !== null), 20_000);
    await first.stop();

    const second = newMonitor({}, { cacheFile: monitorCacheFile(cacheDir) }).monitor;
    await second.start();
    const cached = second.snapshot();
    expect(cached.every((s) => s.fromCache && s.delayMs !== null && s.ipInfo?.fromCache)).toBe(true);
    expect(cached.map((s) => s.ipInfo?.countryCode)).toEqual(world.servers.map((s) => world.labOf(s).country));
    await waitFor('fresh results and confirmed IP info', () => second.snapshot().every((s) => !s.fromCache && s.ipInfo && !s.ipInfo.fromCache), 20_000);
    expect(second.snapshot().map((s) => s.ipInfo?.ip)).toEqual(world.servers.map((s) => world.labOf(s).exitIp));
  });

  it('discards a cycle\'s failures when the network itself is down (the direct check fails too)', async () => {
    await world.lab.setNetwork('offline');
    const { monitor, log } = newMonitor({ urlTestTimeoutMs: 1000 }, { ipInfo: false });
    await monitor.start();
    await waitFor('the cycle to end', () => log.records.some((r) => r.message.includes('the network is down')), 15_000);
    expect(monitor.snapshot().every((s) => s.testedAt === null && s.error === null)).toBe(true);
  });

  it('measures a blackholed server as failed and the others as answering, one probe each', async () => {
    const dead = world.lab.info.servers[2]!;
    await world.lab.setFault(dead.id, { fault: 'blackhole' });
    try {
      const before = await world.lab.counters();
      const { monitor } = newMonitor({ urlTestTimeoutMs: 1500 }, { ipInfo: false });
      await monitor.start();
      await waitFor('the first cycle', () => monitor.progress().running === false && monitor.snapshot().every((s) => s.testedAt !== null), 20_000);
      const after = await world.lab.counters();
      const statuses = monitor.snapshot();
      expect(statuses[2]).toMatchObject({ delayMs: null, error: { kind: 'timeout' } });
      expect(statuses.filter((s) => s.delayMs !== null)).toHaveLength(world.servers.length - 1);
      // One probe per server, and one more for the failure seen in a busy batch only if the batch was busy.
      const probes = world.lab.info.servers.map((s) => after.servers[s.id]!.connections - before.servers[s.id]!.connections);
      expect(probes.filter((n, i) => i !== 2).every((n) => n === 1)).toBe(true);
      expect(monitor.exportObservation().batch.confirmedFailures + 1).toBe(probes[2]);
    } finally {
      await world.lab.setFault(dead.id, { fault: 'none', latencyMs: dead.latencyMs });
    }
  });
});
