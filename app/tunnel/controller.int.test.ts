/**
 * The tunnel against the lab: real v2ray servers behind fault relays, a real v2ray as our core,
 * real requests through its HTTP and SOCKS5 inbounds.
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { createServer, type Server as NetServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { ProxyAgent, request } from 'undici';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type InProcessLab, startLab } from '../../e2e/lab';
import type { ConnectionState, TrafficSample } from '../../shared/domain/connection';
import type { Server } from '../../shared/domain/server';
import { type CoreProfile, detectCore } from '../core';
import { memoryLogger } from '../log/logger';
import { type CoreExitEvent, type DialFailureEvent, type DialRetryEvent, type RestartedEvent, TunnelController } from './controller';
import { freePorts } from './ports';
import { serversFromLinks } from './testing/lab-servers';
import { isRunning, processesMentioning, processesOf, waitUntil } from './testing/processes';

let lab: InProcessLab;
let servers: Server[];
let core: CoreProfile;
let runtimeDir: string;
let tunnel: TunnelController | null = null;

beforeAll(async () => {
  lab = await startLab({ servers: 8, latency: [20, 40] });
  servers = serversFromLinks(lab.info.servers.map((s) => s.shareLink));
  core = await detectCore('/usr/bin/v2ray');
  runtimeDir = await mkdtemp(join(tmpdir(), 'steadfast-tunnel-'));
});

afterEach(async () => {
  await tunnel?.disconnect();
  tunnel = null;
});

afterAll(async () => {
  await lab?.stop();
  await rm(runtimeDir, { recursive: true, force: true });
});

async function newTunnel() {
  const [httpPort, socksPort] = (await freePorts(2)) as [number, number];
  const log = memoryLogger('debug');
  tunnel = new TunnelController({ core, runtimeDir, logger: log.logger, httpPort, socksPort });
  return { tunnel, log, httpPort, socksPort };
}

async function get(proxy: string, url: string, timeoutMs = 5000): Promise<{ status: number; body: string }> {
  const agent = new ProxyAgent(proxy);
  try {
    const response = await request(url, { dispatcher: agent, signal: AbortSignal.timeout(timeoutMs) });
    return { status: response.statusCode, body: await response.body.text() };
  } finally {
    await agent.destroy();
  }
}

/** The tunnel config files a process was started with (the core's `-config`). */
function configArgsOf(pid: number): string[] {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter((arg) => arg.endsWith('/tunnel.json'));
  } catch {
    return []; // gone meanwhile
  }
}

const labServer = (i: number) => lab.info.servers[i]!;

describe('TunnelController against the lab', () => {
  it('connects through a server of each lab protocol; HTTP and SOCKS5 reach the target, which sees the exit IP', async () => {
    const { tunnel } = await newTunnel();
    const protocols = new Set<string>();
    for (const [i, server] of servers.entries()) {
      if (protocols.has(`${server.protocol}/${server.transport.network}/${server.security.type}`)) continue;
      protocols.add(`${server.protocol}/${server.transport.network}/${server.security.type}`);
      const state = await tunnel.switch(server);
      expect(state).toMatchObject({ state: 'connected', serverId: server.id });
      for (const proxy of [state.httpProxy!, state.socksProxy!]) {
        const info = await get(proxy, lab.info.ipinfo);
        expect(info.status, `${server.name} via ${proxy}`).toBe(200);
        expect(JSON.parse(info.body).ip, `${server.name} via ${proxy}`).toBe(labServer(i).exitIp);
        expect((await get(proxy, lab.info.target)).status).toBe(204);
      }
    }
    expect([...protocols].map((p) => p.split('/')[0]).sort()).toEqual(expect.arrayContaining(['shadowsocks', 'trojan', 'vless', 'vmess']));
  });

  it('writes its config 0600 while connected and removes it on disconnect', async () => {
    const { tunnel } = await newTunnel();
    await tunnel.connect(servers[0]!);
    const file = join(runtimeDir, 'tunnel.json');
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    const corePid = processesMentioning(file);
    expect(corePid.length).toBeGreaterThan(0);
    await tunnel.disconnect();
    expect(tunnel.state().state).toBe('disconnected');
    await expect(stat(file)).rejects.toThrow();
    expect(processesMentioning(file).filter((pid) => isRunning(pid))).toEqual([]);
  });

  const canMount = process.getuid?.() === 0 && (() => {
    try {
      const probe = mkdtempSync(join(tmpdir(), 'mount-probe-'));
      execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=64k', 'tmpfs', probe], { stdio: 'ignore' });
      execFileSync('umount', [probe]);
      rmSync(probe, { recursive: true });
      return true;
    } catch {
      return false;
    }
  })();

  it.skipIf(!canMount)('connects on a full disk: the config goes to a private 0600 file elsewhere, traffic flows, the file leaves on disconnect', async () => {
    const full = mkdtempSync(join(tmpdir(), 'steadfast-full-'));
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=64k,mode=0700', 'tmpfs', full]);
    try {
      mkdirSync(join(full, 'runtime'), { mode: 0o700 });
      expect(() => writeFileSync(join(full, 'filler'), Buffer.alloc(128 * 1024))).toThrow(/ENOSPC/);
      const [httpPort, socksPort] = (await freePorts(2)) as [number, number];
      tunnel = new TunnelController({ core, runtimeDir: join(full, 'runtime'), logger: memoryLogger('debug').logger, httpPort, socksPort });
      const state = await tunnel.connect(servers[2]!);
      expect((await get(state.httpProxy!, lab.info.target)).status).toBe(204);
      expect(readdirSync(join(full, 'runtime'))).toEqual([]);
      const [file] = new Set(processesMentioning('steadfast-core-').flatMap((pid) => configArgsOf(pid)));
      expect(file).toMatch(/steadfast-core-[^/]+\/tunnel\.json$/);
      expect((await stat(file!)).mode & 0o777).toBe(0o600);
      expect((await stat(dirname(file!))).mode & 0o777).toBe(0o700);
      await tunnel.disconnect();
      await expect(stat(file!)).rejects.toThrow();
    } finally {
      execFileSync('umount', [full]);
      rmSync(full, { recursive: true, force: true });
    }
  });

  it('restarts a core killed with -9: traffic flows again within 2 s, and an event and a log line say so', async () => {
    const { tunnel, log } = await newTunnel();
    const state = await tunnel.connect(servers[1]!);
    const exits: CoreExitEvent[] = [];
    const restarts: RestartedEvent[] = [];
    tunnel.on('coreExit', (e) => exits.push(e));
    tunnel.on('restarted', (e) => restarts.push(e));

    // Traffic runs: a request every 50 ms.
    let running = true;
    const successes: number[] = [];
    const traffic = (async () => {
      while (running) {
        const ok = await get(state.httpProxy!, lab.info.target, 1000).then(
          (r) => r.status === 204,
          () => false,
        );
        if (ok) successes.push(performance.now());
        await new Promise((r) => setTimeout(r, 50));
      }
    })();
    await waitUntil(() => successes.length >= 3, 3000);

    const [pid] = processesOf(core.path, join(runtimeDir, 'tunnel.json'));
    expect(pid).toBeDefined();
    const killedAt = performance.now();
    process.kill(pid!, 'SIGKILL');
    const recovered = await waitUntil(() => successes.some((t) => t > killedAt + 1) && tunnel.state().state === 'connected', 3000);
    const firstAfter = successes.find((t) => t > killedAt + 1);
    running = false;
    await traffic;

    expect(recovered).toBe(true);
    expect(firstAfter! - killedAt).toBeLessThan(2000);
    expect(exits).toEqual([expect.objectContaining({ description: 'killed by SIGKILL', attempt: 1, restartInMs: 200 })]);
    expect(restarts).toEqual([expect.objectContaining({ attempt: 1 })]);
    expect(log.lines.some((l) => / WARNING TUNNEL tunnel core killed by SIGKILL; restart 1 in 200 ms/.test(l))).toBe(true);
    expect(log.lines.some((l) => / INFO TUNNEL tunnel core restarted \(attempt 1\)/.test(l))).toBe(true);
    console.info(`kill -9 → traffic again after ${Math.round(firstAfter! - killedAt)} ms (core down ${restarts[0]?.downMs} ms)`);
  });

  it('emits traffic that adds up to within 10% of the bytes transferred', async () => {
    const { tunnel } = await newTunnel();
    const state = await tunnel.connect(servers[2]!);
    const samples: TrafficSample[] = [];
    await new Promise((r) => setTimeout(r, 600));
    tunnel.on('traffic', (s) => samples.push(s));
    const bytes = 5 * 1024 * 1024;
    const result = await get(state.httpProxy!, `${lab.info.download}?bytes=${bytes}`, 30_000);
    expect(result.body.length).toBe(bytes);
    await new Promise((r) => setTimeout(r, 800));
    const down = samples.reduce((n, s) => n + s.downBytes, 0);
    const up = samples.reduce((n, s) => n + s.upBytes, 0);
    expect(Math.abs(down - bytes) / bytes).toBeLessThan(0.1);
    expect(up).toBeGreaterThan(0);
    expect(up).toBeLessThan(10_000);
    expect(samples.every((s) => s.intervalMs >= 200 && s.intervalMs <= 600)).toBe(true);
    console.info(`traffic: ${down} bytes counted for ${bytes} transferred (${(((down - bytes) / bytes) * 100).toFixed(2)}%), up ${up}`);
  });

  it('reports dial failures of the current server from the core log: refused after the retries, reset at once', async () => {
    const { tunnel } = await newTunnel();
    const target = 3;
    const state = await tunnel.connect(servers[target]!);
    const failures: (DialFailureEvent & { t: number })[] = [];
    const retries: (DialRetryEvent & { t: number })[] = [];
    tunnel.on('dialFailure', (f) => failures.push({ ...f, t: performance.now() }));
    tunnel.on('dialRetrying', (r) => retries.push({ ...r, t: performance.now() }));
    try {
      await lab.setFault(labServer(target).id, { fault: 'refuse' });
      let began = performance.now();
      await get(state.httpProxy!, lab.info.target, 5000).catch(() => undefined);
      await waitUntil(() => failures.length > 0, 1000);
      expect(failures).toEqual([expect.objectContaining({ serverId: servers[target]!.id, kind: 'refused', address: labServer(target).relay, upstream: false })]);
      expect(retries[0]).toMatchObject({ serverId: servers[target]!.id, attempt: 2 });
      const refusedAt = failures[0]!.t - began;
      const retryAt = retries[0]!.t - began;
      // v2ray 4.34 retries a dial 5 times, the first retry at once: the second dial is the first
      // sign. It gives up after ~2 s for vmess/vless (200 ms steps), ~1 s for trojan/shadowsocks.
      expect(retryAt).toBeLessThan(300);
      expect(refusedAt).toBeGreaterThan(['vmess', 'vless'].includes(servers[target]!.protocol) ? 1800 : 900);
      expect(refusedAt).toBeLessThan(2600);

      await lab.setFault(labServer(target).id, { fault: 'reset' });
      failures.length = 0;
      began = performance.now();
      await get(state.httpProxy!, lab.info.target, 5000).catch(() => undefined);
      await waitUntil(() => failures.length > 0, 1000);
      expect(failures[0]).toMatchObject({ kind: 'reset', address: labServer(target).relay });
      // At once when the dial had completed; after the dial's retries when the RST beat it.
      expect(failures[0]!.t - began).toBeLessThan(refusedAt + 400);
      console.info(`dial failures: first retry after ${Math.round(retryAt)} ms, refused after ${Math.round(refusedAt)} ms, reset after ${Math.round(failures[0]!.t - began)} ms`);
    } finally {
      await lab.setFault(labServer(target).id, { fault: 'none' });
    }
  });

  it('a pinned TLS server on v2ray (which cannot pin): reached and logged when its link allows skipping verification, refused when it asks for the pin alone', async () => {
    const selfSigned = servers.find((s) => s.security.type === 'tls' && s.security.allowInsecure);
    if (!selfSigned) throw new Error('the lab has no TLS server with a self-signed certificate');
    const pin = ['54807151bd83523fee9081f08d708aecb59a3f3e75f154d7e96d35f51149ff8e'];
    const { tunnel, log } = await newTunnel();
    const allowed = await tunnel.connect({ ...selfSigned, security: { ...selfSigned.security, pinnedCertSha256: pin } });
    expect(allowed).toMatchObject({ state: 'connected' });
    expect((await get(allowed.httpProxy!, lab.info.target)).status).toBe(204);
    expect(log.lines.some((l) => l.includes(` WARNING TUNNEL ${selfSigned.name}: the certificate pin (pcs) is not applied`))).toBe(true);
    const pinOnly = { ...selfSigned, security: { ...selfSigned.security, allowInsecure: false, pinnedCertSha256: pin } };
    await expect(tunnel.connect(pinOnly)).rejects.toThrow(/pins its certificate \(pcs\) and this core cannot check a pin/);
  });

  it('says clearly when a configured port is taken, and starts nothing', async () => {
    const { tunnel, httpPort } = await newTunnel();
    const squatter: NetServer = createServer();
    await new Promise<void>((r) => squatter.listen(httpPort, '127.0.0.1', () => r()));
    const states: ConnectionState[] = [];
    tunnel.on('state', (s) => states.push(s));
    try {
      await expect(tunnel.connect(servers[0]!)).rejects.toThrow(`Port ${httpPort} on 127.0.0.1 (HTTP proxy) is already in use by another program`);
      expect(states.at(-1)).toMatchObject({ state: 'failed', error: expect.stringContaining('already in use') });
      expect(processesMentioning(join(runtimeDir, 'tunnel.json'))).toEqual([]);
    } finally {
      squatter.close();
    }
  });

  it('leaves no core behind when the app is killed with -9', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'steadfast-orphan-'));
    const [httpPort, socksPort] = await freePorts(2);
    const script = `
      import { detectCore } from ${JSON.stringify(new URL('../core/index.ts', import.meta.url).pathname)};
      import { memoryLogger } from ${JSON.stringify(new URL('../log/logger.ts', import.meta.url).pathname)};
      import { TunnelController } from ${JSON.stringify(new URL('./controller.ts', import.meta.url).pathname)};
      import { serversFromLinks } from ${JSON.stringify(new URL('./testing/lab-servers.ts', import.meta.url).pathname)};
      const [server] = serversFromLinks([process.env.LINK]);
      const core = await detectCore('/usr/bin/v2ray');
      const tunnel = new TunnelController({ core, runtimeDir: process.env.DIR, logger: memoryLogger().logger, httpPort: ${httpPort}, socksPort: ${socksPort} });
      await tunnel.connect(server);
      console.log('connected');
      setInterval(() => {}, 1000);
    `;
    const app = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      env: { ...process.env, LINK: labServer(0).shareLink, DIR: dir },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    try {
      await new Promise<void>((resolve, reject) => {
        app.stdout!.on('data', (d) => String(d).includes('connected') && resolve());
        app.once('exit', () => reject(new Error('the app exited early')));
      });
      const file = join(dir, 'tunnel.json');
      const cores = processesOf('/usr/bin/v2ray', file);
      expect(cores.length).toBeGreaterThan(0);
      app.kill('SIGKILL');
      expect(await waitUntil(() => cores.every((pid) => !isRunning(pid)), 3000)).toBe(true);
    } finally {
      app.kill('SIGKILL');
      await rm(dir, { recursive: true, force: true });
    }
  });
});
