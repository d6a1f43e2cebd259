/**
 * verify_ipv6 against the lab, for real: the real prober (a v2ray hosting every server), real lab
 * servers, the lab target answering on 127.0.0.1 and ::1 at the same port. Lab servers refuse
 * IPv6 (v2ray cannot dial ::1 from an IPv4 sendThrough) except the IPv6-capable ones (A2, …),
 * whose IPv6 traffic leaves from ::1: the monitor must tell them apart.
 *
 * The test URL is the target by name (http://localhost:P/generate_204). Its IPv6 address comes
 * from the system resolver where /etc/hosts gives localhost one (Debian's default); where it does
 * not (this build machine), from the lab's own table (localhost → ::1, the target's IPv6 front),
 * which stands in for DNS. The system resolver's own answer is tested as it is on this machine.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type InProcessLab, startLab } from '../../e2e/lab';
import type { Server } from '../../shared/domain/server';
import { type MonitorSettings, monitorSettingsSchema } from '../../shared/settings';
import { systemClock } from '../clock';
import { detectCore } from '../core';
import { memoryLogger } from '../log/logger';
import { CoreProber } from '../tunnel/prober';
import { serversFromLinks } from '../tunnel/testing/lab-servers';
import { type Ipv6Resolver, systemIpv6Resolver } from './ipv6/resolver';
import { Monitor, type MonitorOptions } from './monitor';

let lab: InProcessLab;
let servers: Server[];
let prober: CoreProber;
let dir: string;
let resolveIpv6: Ipv6Resolver;
let systemHasAaaa = false;
const monitors: Monitor[] = [];

beforeAll(async () => {
  lab = await startLab({ servers: 8, latency: [20, 60] });
  servers = serversFromLinks(lab.info.servers.map((s) => s.shareLink));
  dir = await mkdtemp(join(tmpdir(), 'steadfast-monitor-ipv6-'));
  prober = new CoreProber({ core: await detectCore('/usr/bin/v2ray'), runtimeDir: dir, logger: memoryLogger().logger, rebuildDebounceMs: 20 });
  prober.setServers(servers);
  await prober.settled();
  const byName = new URL(lab.info.targetByName).hostname;
  const labIpv6 = new URL(lab.info.targetIpv6 ?? 'http://[::1]/').hostname.slice(1, -1);
  systemHasAaaa = (await systemIpv6Resolver(byName)).address === labIpv6;
  resolveIpv6 = systemHasAaaa ? systemIpv6Resolver : async (host) => (host === byName ? { address: labIpv6 } : { address: null, reason: `${host} is not a lab name` });
});

afterEach(async () => {
  for (const monitor of monitors.splice(0)) await monitor.stop();
});

afterAll(async () => {
  await prober?.close();
  await lab?.stop();
  await rm(dir, { recursive: true, force: true });
});

const labOf = (server: Server) => lab.info.servers[servers.indexOf(server)]!;

function newMonitor(settings: Partial<MonitorSettings> = {}, extra: Partial<MonitorOptions> = {}) {
  const log = memoryLogger('info');
  const monitor = new Monitor({
    prober,
    clock: systemClock,
    logger: log.logger,
    settings: monitorSettingsSchema.parse({ urls: [lab.info.targetByName], transferTestUrl: `${lab.info.bytes}/{bytes}`, verifyIpv6: true, urlTestTimeoutMs: 4000, intervalMs: 3600_000, ...settings }),
    cacheFile: null,
    servers: () => servers,
    selections: () => [],
    ipInfo: false,
    resolveIpv6,
    ...extra,
  });
  monitors.push(monitor);
  const ipv6Lines = () => log.records.filter((r) => r.tag === 'MONITORING' && r.message.startsWith('IPv6 check of ')).map((r) => r.message);
  return { monitor, log, ipv6Lines };
}

async function until<T>(what: string, probe: () => T | undefined | null | false, timeoutMs = 30_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (value) return value;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe('verify_ipv6 through real lab servers', () => {
  it('the lab has both kinds of server, and its target answers on ::1', () => {
    expect(lab.info.targetIpv6).toMatch(/^http:\/\/\[::1\]:\d+\/generate_204$/);
    expect(lab.info.servers.filter((s) => s.ipv6).map((s) => s.id)).toEqual(['A2', 'C1']);
  });

  it('reports the IPv6-capable servers as supported and every other server as refusing IPv6, once each', async () => {
    const { monitor, ipv6Lines } = newMonitor();
    await monitor.start();
    const statuses = await until('every IPv6 check', () => {
      const all = monitor.snapshot();
      return all.every((s) => s.ipv6 !== null) && all;
    });
    const port = new URL(lab.info.targetByName).port;
    for (const [i, status] of statuses.entries()) {
      const server = servers[i]!;
      expect(status.delayMs, server.name).not.toBeNull();
      expect(status.ipv6, server.name).toMatchObject({ supported: labOf(server).ipv6, source: 'verified', fromCache: false });
      if (labOf(server).ipv6) expect(status.ipv6?.detail).toMatch(/^answered HTTP 204 via ::1 in \d+ ms$/);
      else expect(status.ipv6?.detail).toMatch(/^no answer via ::1: /);
    }
    expect(ipv6Lines()).toHaveLength(servers.length);
    expect(ipv6Lines().every((line) => line.includes(`(http://[::1]:${port}/generate_204, Host localhost:${port})`))).toBe(true);

    // A second full cycle tests every server again; the IPv6 checks are not repeated in this run.
    const testedAt = new Map(statuses.map((s) => [s.serverId, s.testedAt]));
    monitor.testAll();
    await until('the second cycle', () => monitor.snapshot().every((s) => s.testedAt !== testedAt.get(s.serverId)));
    await new Promise((r) => setTimeout(r, 1500));
    expect(ipv6Lines()).toHaveLength(servers.length);
  });

  it('a server whose subscription declares its IPv6 support is not verified: the declaration is shown from the start', async () => {
    const capable = servers.find((s) => labOf(s).ipv6)!;
    const declared = servers.map((s) => (s === capable ? { ...s, ipv6: false } : s));
    const { monitor, ipv6Lines } = newMonitor({}, { servers: () => declared });
    expect(monitor.status(capable.id).ipv6).toMatchObject({ supported: false, source: 'declared' });
    await monitor.start();
    await until('every other IPv6 check', () => monitor.snapshot().every((s) => s.ipv6 !== null && (s.serverId === capable.id || s.ipv6.source === 'verified')));
    await until('the declared server tested', () => monitor.status(capable.id).delayMs !== null);
    await new Promise((r) => setTimeout(r, 1500));
    expect(monitor.status(capable.id).ipv6).toMatchObject({ supported: false, source: 'declared' });
    expect(ipv6Lines().filter((l) => l.startsWith(`IPv6 check of ${capable.name}:`))).toEqual([]);
    expect(ipv6Lines()).toHaveLength(servers.length - 1);
  });

  it('with the system resolver, says what this machine knows: no AAAA for localhost is "unknown", never a guess', async () => {
    const { monitor } = newMonitor({}, { resolveIpv6: systemIpv6Resolver });
    const server = servers[1]!;
    await monitor.start();
    const ipv6 = await until('the IPv6 check', () => monitor.status(server.id).ipv6);
    if (systemHasAaaa) expect(ipv6).toMatchObject({ supported: labOf(server).ipv6, source: 'verified' });
    else expect(ipv6).toEqual({ supported: null, source: 'verified', detail: 'localhost has no IPv6 address (AAAA)', at: expect.any(Number), fromCache: false });
  });
});
