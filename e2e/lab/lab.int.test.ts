/**
 * The whole lab, for real: v2ray servers, relays, target, subscriptions and control API, measured
 * through the lab's own v2ray client, then taken down with nothing left behind. Also `npm run lab`
 * as a child process: 200 servers within 10 s, and clean-up after SIGTERM and after SIGKILL.
 */
import { createConnection } from 'node:net';
import { deflateRawSync } from 'node:zlib';
import { performance } from 'node:perf_hooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ClientRoute, type LabClient, startClient } from './client';
import { type InProcessLab, splitAddress, startLab } from './lab';
import { descendants, isAlive, isLoopback, listenersOf, tcpListeners } from './proc-net';
import { rawProbe } from './raw-probe';
import { type SelftestContext, makeContext } from './selftest-context';
import { checkBlackhole, checkBlockedHere, checkExitIps, checkFailFast, checkFlap, checkJitter, checkLatency, checkOffline, checkSlow } from './selftest-faults';
import { checkIpv6 } from './selftest-ipv6';
import { checkControlValidation, checkIpInfo, checkSubscriptions } from './selftest-services';
import { assignRoles } from './selftest';
import { spawnLab } from './spawn';
import type { LabState } from './types';

async function waitFor(predicate: () => boolean, timeoutMs: number): Promise<boolean> {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    if (predicate()) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return predicate();
}

function listeningOn(address: string): boolean {
  const [host, port] = splitAddress(address);
  return tcpListeners().some((l) => l.port === port && (l.address === host || l.address === '0.0.0.0'));
}

describe('the lab, in-process', () => {
  let lab: InProcessLab;
  let client: LabClient;
  let ctx: SelftestContext;
  let roles: Exclude<ReturnType<typeof assignRoles>, string>;
  let chainRoute = '';

  beforeAll(async () => {
    lab = await startLab({ servers: 12 });
    const plan = assignRoles(lab.world.servers);
    if (typeof plan === 'string') throw new Error(plan);
    roles = plan;
    const dial = (id: string) => {
      const [host, port] = splitAddress(lab.info.servers.find((s) => s.id === id)?.relay ?? '');
      return { host, port };
    };
    chainRoute = `chain-${roles.roles.via}-${roles.roles.blocked}`;
    const blocked = lab.world.servers.find((s) => s.id === roles.roles.blocked);
    if (!blocked) throw new Error('no blocked server');
    const routes: ClientRoute[] = [
      ...lab.world.servers.map((s) => ({ tag: s.id, server: s, dial: dial(s.id) })),
      { tag: chainRoute, server: blocked, dial: dial(blocked.id), via: roles.roles.via },
    ];
    client = await startClient(routes);
    ctx = makeContext(lab, client);
  });

  afterAll(async () => {
    await client?.stop();
    await lab?.stop();
  });

  it('reports 12 servers of 4 protocols with distinct exit IPs, subscriptions and every IP-info URL', () => {
    const { info } = lab;
    expect(info.servers).toHaveLength(12);
    expect(new Set(info.servers.map((s) => s.protocol)).size).toBe(4);
    expect(new Set(info.servers.map((s) => s.exitIp)).size).toBe(12);
    expect(new Set(info.servers.map((s) => splitAddress(s.relay)[0])).size).toBe(12);
    expect(info.subscriptions.map((s) => s.id)).toEqual(['A', 'B', 'C']);
    expect(Object.keys(info.ipinfoUrls).sort()).toEqual(['api.country.is', 'api.ip.sb', 'api.my-ip.io', 'cloudflare-trace', 'ip-api.com', 'ipapi.co', 'ipinfo.io', 'ipwho.is']);
    expect(info.ipinfo).toBe(info.ipinfoUrls['ipapi.co']);
    expect(info.target).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/generate_204$/);
    const port = new URL(info.target).port;
    expect(info.targetIpv6).toBe(`http://[::1]:${port}/generate_204`);
    expect(info.targetByName).toBe(`http://localhost:${port}/generate_204`);
  });

  it('listens only on 127.0.0.0/8: every socket of the lab and its v2ray processes', () => {
    const pids = [process.pid, ...descendants(process.pid)];
    const listeners = listenersOf(pids);
    // 12 relays + 12 v2ray inbounds + target, subscriptions (front and back) + control + client inbounds
    expect(listeners.length).toBeGreaterThanOrEqual(12 + 12 + 5);
    expect(listeners.filter((l) => !isLoopback(l))).toEqual([]);
  });

  it('leaves every server from its own exit IP, as the target sees it', async () => {
    const check = await checkExitIps(ctx);
    expect(check).toMatchObject({ ok: true, servers_checked: 12, wrong: [] });
  });

  it('answers on ::1 at the target\'s port; IPv6-capable servers reach it, the others refuse IPv6; offline cuts ::1 too', async () => {
    const check = await checkIpv6(ctx);
    expect(check, JSON.stringify(check)).toMatchObject({ ok: true });
    expect(lab.info.servers.filter((s) => s.ipv6).map((s) => s.id)).toEqual(['A2', 'B3', 'C4']);
  });

  it('answers every IP-info format for the calling server, rate-limits and times out on demand', async () => {
    const check = await checkIpInfo(ctx, roles.roles.via);
    expect(check.services).toEqual(Object.fromEntries(Object.keys(lab.info.ipinfoUrls).map((s) => [s, 'ok'])));
  });

  it('adds latency each way: the added round trip is 2 × the setting (±20 % + 5 ms)', { retry: 2 }, async () => {
    const check = await checkLatency(ctx, roles.latency[1] ?? roles.latency[0] ?? 'A2', 80);
    expect(check, JSON.stringify(check)).toMatchObject({ ok: true });
  });

  it('jitter varies the round trip within its bounds', { retry: 2 }, async () => {
    const check = await checkJitter(ctx, roles.roles.jitter);
    expect(check, JSON.stringify(check)).toMatchObject({ ok: true });
  });

  it('blackhole never answers within 5 s', async () => {
    const check = await checkBlackhole(ctx, roles.roles.blackhole);
    expect(check, JSON.stringify(check)).toMatchObject({ ok: true, raw_connected: true, raw_answered_within_5s: false });
  });

  it.each(['reset', 'refuse'] as const)('%s fails fast', async (fault) => {
    const check = await checkFailFast(ctx, fault === 'reset' ? roles.roles.reset : roles.roles.refuse, fault);
    expect(check, JSON.stringify(check)).toMatchObject({ ok: true, raw_error: fault === 'reset' ? 'ECONNRESET' : 'ECONNREFUSED' });
  });

  it('slow caps the download rate', { retry: 2 }, async () => {
    const check = await checkSlow(ctx, roles.roles.slow);
    expect(check, JSON.stringify(check)).toMatchObject({ ok: true });
  });

  it('serves /bytes/N: exactly N bytes that do not compress, fresh on every request', async () => {
    const first = await ctx.direct(`${lab.info.bytes}/70000`, 5000);
    const second = await ctx.direct(`${lab.info.bytes}/70000`, 5000);
    expect(first).toMatchObject({ ok: true, status: 200 });
    expect(first.body.length).toBe(70_000);
    expect(deflateRawSync(first.body, { level: 9 }).length).toBeGreaterThanOrEqual(70_000);
    expect(first.body.equals(second.body)).toBe(false);
    expect((await ctx.direct(`${lab.info.bytes}/lots`, 5000)).status).toBe(400);
  });

  it('freeze passes the first afterBytes through a real server, then holds the download open and silent', async () => {
    const id = roles.roles.slow;
    await lab.setFault(id, { fault: 'freeze', afterBytes: 16 * 1024, latencyMs: 10 });
    try {
      const r = await ctx.via(id, `${lab.info.bytes}/${256 * 1024}`, 3000);
      expect(r.error).toBeTruthy();
      expect(r.body.length).toBeGreaterThan(8 * 1024);
      expect(r.body.length).toBeLessThan(16 * 1024);
      const frozen = await ctx.via(id, lab.info.target, 3000);
      expect(frozen, 'a ping fits under the freeze').toMatchObject({ ok: true, status: 204 });
    } finally {
      await lab.setFault(id, { fault: 'none' });
    }
  });

  it('flap alternates down and up', { retry: 2 }, async () => {
    const check = await checkFlap(ctx, roles.roles.flap);
    expect(check, JSON.stringify(check)).toMatchObject({ ok: true });
  });

  it('blocked-here fails from 127.0.0.1 and works from another server’s exit', async () => {
    const check = await checkBlockedHere(ctx, roles.roles.blocked, roles.roles.via, chainRoute);
    expect(check, JSON.stringify(check)).toMatchObject({ ok: true });
  });

  it('network offline blackholes the user side (relays, target, subscriptions), not the control API', async () => {
    const check = await checkOffline(ctx, roles.roles.via);
    expect(check, JSON.stringify(check)).toMatchObject({ ok: true });
  });

  it('network offline also stalls a keep-alive connection that was already open, which resumes online', async () => {
    const [host, port] = splitAddress(new URL(lab.info.target).host);
    const socket = createConnection({ host, port });
    const request = 'GET /generate_204 HTTP/1.1\r\nHost: lab\r\nConnection: keep-alive\r\n\r\n';
    const responses: number[] = [];
    socket.on('data', (chunk: Buffer) => {
      if (chunk.toString().startsWith('HTTP/1.1 204')) responses.push(performance.now());
    });
    await new Promise((r) => socket.once('connect', r));
    socket.write(request);
    expect(await waitFor(() => responses.length === 1, 2000)).toBe(true);
    await lab.setNetwork('offline');
    socket.write(request);
    await new Promise((r) => setTimeout(r, 500));
    expect(responses).toHaveLength(1);
    await lab.setNetwork('online');
    expect(await waitFor(() => responses.length === 2, 2000)).toBe(true);
    socket.destroy();
  });

  it('serves every subscription in every format, and every mode', async () => {
    const check = await checkSubscriptions(ctx);
    expect(check, JSON.stringify(check)).toMatchObject({ ok: true, problems: [] });
  });

  it('counts connections and bytes per server and requests per service and subscription', async () => {
    const id = roles.roles.via;
    const before = await lab.counters();
    await ctx.via(id, lab.info.ipinfoUrls['ipwho.is'], 5000);
    await ctx.direct(lab.info.subscriptions[1]?.url ?? '', 3000);
    const after = await lab.counters();
    const server = after.servers[id];
    expect(server?.connections).toBeGreaterThan(before.servers[id]?.connections ?? 0);
    expect(server?.bytesUp).toBeGreaterThan(before.servers[id]?.bytesUp ?? 0);
    expect(server?.bytesDown).toBeGreaterThan(before.servers[id]?.bytesDown ?? 0);
    expect(after.ipinfo['ipwho.is']).toBe(before.ipinfo['ipwho.is'] + 1);
    expect(after.subscriptions.B).toBe((before.subscriptions.B ?? 0) + 1);
  });

  it('control API: validates input (400/404 with a message) and applies good input to /state', async () => {
    const check = await checkControlValidation(ctx);
    expect(check, JSON.stringify(check)).toMatchObject({ ok: true, wrong: [] });
    const id = roles.roles.slow;
    const res = await fetch(`${lab.info.control}/servers/${id}`, { method: 'POST', body: JSON.stringify({ fault: 'flap', periodMs: 3000, latencyMs: 42 }) });
    expect(res.status).toBe(200);
    const state = (await (await fetch(`${lab.info.control}/state`)).json()) as LabState;
    expect(state.servers.find((s) => s.id === id)).toMatchObject({ fault: 'flap', periodMs: 3000, latencyMs: 42 });
    await expect(lab.setFault('Z9', { fault: 'none' })).rejects.toThrow(/unknown server "Z9"/);
    await expect(lab.setFault(id, { latencyMs: -1 } as never)).rejects.toThrow(/latencyMs/);
  });

  it('stops with no process and no listening port left', async () => {
    const v2rays = descendants(process.pid);
    const addresses = [...lab.info.servers.map((s) => s.relay), new URL(lab.info.control).host, new URL(lab.info.target).host];
    const ipv6Port = Number(new URL(lab.info.targetIpv6 ?? 'http://[::1]:1/').port);
    const onIpv6 = () => tcpListeners().some((l) => l.family === 6 && l.port === ipv6Port && isLoopback(l));
    expect(onIpv6()).toBe(true);
    await client.stop();
    await lab.stop();
    expect(await waitFor(() => v2rays.every((pid) => !isAlive(pid)), 5000)).toBe(true);
    expect(addresses.filter(listeningOn)).toEqual([]);
    expect(onIpv6()).toBe(false);
    const probe = await rawProbe(...splitAddress(lab.info.servers[0]?.relay ?? ''), { waitMs: 1000 });
    expect(probe.error).toBe('ECONNREFUSED');
  });
});

describe('the lab as a child process (npm run lab)', () => {
  it('prints its JSON line for 200 servers within 10 s, obeys its control API, and leaves nothing after SIGTERM', async () => {
    const started = performance.now();
    const lab = await spawnLab(['--servers', '200']);
    const elapsed = performance.now() - started;
    try {
      expect(elapsed).toBeLessThan(10_000);
      expect(lab.info.servers).toHaveLength(200);
      expect(new Set(lab.info.servers.map((s) => s.exitIp)).size).toBe(200);
      const children = descendants(lab.pid);
      expect(children.length).toBeGreaterThanOrEqual(2); // v2ray and its guard
      expect(listenersOf([lab.pid, ...children]).filter((l) => !isLoopback(l))).toEqual([]);
      await lab.setFault('A1', { fault: 'blackhole', latencyMs: 5 });
      await lab.setIpInfo('ipinfo.io', '429');
      const state = (await lab.state()) as LabState;
      expect(state.servers.find((s) => s.id === 'A1')).toMatchObject({ fault: 'blackhole', latencyMs: 5 });
      expect(state.ipinfo['ipinfo.io']).toBe('429');
      expect((await lab.counters()).servers.A1).toMatchObject({ connections: 0 });
      const relays = lab.info.servers.map((s) => s.relay);
      await lab.stop();
      expect(isAlive(lab.pid)).toBe(false);
      expect(await waitFor(() => children.every((pid) => !isAlive(pid)), 5000)).toBe(true);
      expect(relays.filter(listeningOn)).toEqual([]);
      expect(listeningOn(new URL(lab.info.control).host)).toBe(false);
    } finally {
      await lab.stop();
    }
  });

  it('leaves no v2ray and no port behind when SIGKILLed', async () => {
    const lab = await spawnLab(['--servers', '12']);
    const children = descendants(lab.pid);
    const relays = lab.info.servers.map((s) => s.relay);
    expect(children.length).toBeGreaterThanOrEqual(2);
    process.kill(lab.pid, 'SIGKILL');
    await lab.stop();
    expect(await waitFor(() => children.every((pid) => !isAlive(pid)), 5000)).toBe(true);
    expect(await waitFor(() => relays.every((r) => !listeningOn(r)), 3000)).toBe(true);
  });
});
