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
import { beforeAll, describe, expect, it } from 'vitest';
import { startLab } from '../../e2e/lab';
import type { MonitorSettings } from '../../shared/settings';
import { waitFor } from '../testing/wait';
import { type Ipv6Resolver, systemIpv6Resolver } from './ipv6/resolver';
import type { MonitorOptions } from './monitor';
import { labMonitors } from './testing/lab-monitors';

const world = labMonitors({
  start: () => startLab({ servers: 8, latency: [20, 60] }),
  settings: (lab) => ({ urls: [lab.info.targetByName], transferTestUrl: `${lab.info.bytes}/{bytes}`, verifyIpv6: true, urlTestTimeoutMs: 4000, intervalMs: 3600_000 }),
  options: { ipInfo: false },
});
let resolveIpv6: Ipv6Resolver;
let systemHasAaaa = false;

beforeAll(async () => {
  const byName = new URL(world.lab.info.targetByName).hostname;
  const labIpv6 = new URL(world.lab.info.targetIpv6 ?? 'http://[::1]/').hostname.slice(1, -1);
  systemHasAaaa = (await systemIpv6Resolver(byName)).address === labIpv6;
  resolveIpv6 = systemHasAaaa ? systemIpv6Resolver : async (host) => (host === byName ? { address: labIpv6 } : { address: null, reason: `${host} is not a lab name` });
});

function newMonitor(settings: Partial<MonitorSettings> = {}, extra: Partial<MonitorOptions> = {}) {
  const { monitor, log, monitoringLines } = world.newMonitor(settings, { resolveIpv6, ...extra });
  return { monitor, log, ipv6Lines: () => monitoringLines('IPv6 check of ') };
}

describe('verify_ipv6 through real lab servers', () => {
  it('the lab has both kinds of server, and its target answers on ::1', () => {
    expect(world.lab.info.targetIpv6).toMatch(/^http:\/\/\[::1\]:\d+\/generate_204$/);
    expect(world.lab.info.servers.filter((s) => s.ipv6).map((s) => s.id)).toEqual(['A2', 'C1']);
  });

  it('reports the IPv6-capable servers as supported and every other server as refusing IPv6, once each', async () => {
    const { monitor, ipv6Lines } = newMonitor();
    await monitor.start();
    const statuses = await waitFor('every IPv6 check', () => {
      const all = monitor.snapshot();
      return all.every((s) => s.ipv6 !== null) && all;
    }, 30_000);
    const port = new URL(world.lab.info.targetByName).port;
    for (const [i, status] of statuses.entries()) {
      const server = world.servers[i]!;
      expect(status.delayMs, server.name).not.toBeNull();
      expect(status.ipv6, server.name).toMatchObject({ supported: world.labOf(server).ipv6, source: 'verified', fromCache: false });
      if (world.labOf(server).ipv6) expect(status.ipv6?.detail).toMatch(/^answered HTTP 204 via ::1 in \d+ ms$/);
      else expect(status.ipv6?.detail).toMatch(/^no answer via ::1: /);
    }
    expect(ipv6Lines()).toHaveLength(world.servers.length);
    expect(ipv6Lines().every((line) => line.includes(`(http://[::1]:${port}/generate_204, Host localhost:${port})`))).toBe(true);

    // A second full cycle tests every server again; the IPv6 checks are not repeated in this run.
    const testedAt = new Map(statuses.map((s) => [s.serverId, s.testedAt]));
    monitor.testAll();
    await waitFor('the second cycle', () => monitor.snapshot().every((s) => s.testedAt !== testedAt.get(s.serverId)), 30_000);
    await new Promise((r) => setTimeout(r, 1500));
    expect(ipv6Lines()).toHaveLength(world.servers.length);
  });

  it('a server whose subscription declares its IPv6 support is not verified: the declaration is shown from the start', async () => {
    const capable = world.servers.find((s) => world.labOf(s).ipv6)!;
    const declared = world.servers.map((s) => (s === capable ? { ...s, ipv6: false } : s));
    const { monitor, ipv6Lines } = newMonitor({}, { servers: () => declared });
    expect(monitor.status(capable.id).ipv6).toMatchObject({ supported: false, source: 'declared' });
    await monitor.start();
    await waitFor('every other IPv6 check', () => monitor.snapshot().every((s) => s.ipv6 !== null && (s.serverId === capable.id || s.ipv6.source === 'verified')), 30_000);
    await waitFor('the declared server tested', () => monitor.status(capable.id).delayMs !== null, 30_000);
    await new Promise((r) => setTimeout(r, 1500));
    expect(monitor.status(capable.id).ipv6).toMatchObject({ supported: false, source: 'declared' });
    expect(ipv6Lines().filter((l) => l.startsWith(`IPv6 check of ${capable.name}:`))).toEqual([]);
    expect(ipv6Lines()).toHaveLength(world.servers.length - 1);
  });

  it('with the system resolver, says what this machine knows: no AAAA for localhost is "unknown", never a guess', async () => {
    const { monitor } = newMonitor({}, { resolveIpv6: systemIpv6Resolver });
    const server = world.servers[1]!;
    await monitor.start();
    const ipv6 = await waitFor('the IPv6 check', () => monitor.status(server.id).ipv6, 30_000);
    if (systemHasAaaa) expect(ipv6).toMatchObject({ supported: world.labOf(server).ipv6, source: 'verified' });
    else expect(ipv6).toEqual({ supported: null, source: 'verified', detail: 'localhost has no IPv6 address (AAAA)', at: expect.any(Number), fromCache: false });
  });
});
