/**
 * The prober against the lab: a real v2ray hosting every lab server behind its own inbound,
 * probes through healthy and faulty servers, rebuilds, a crash.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type InProcessLab, startLab } from '../../e2e/lab';
import type { ProbeOutcome } from '../../shared/domain/measurement';
import type { Server } from '../../shared/domain/server';
import { type CoreProfile, detectCore } from '../core';
import { memoryLogger } from '../log/logger';
import { CoreProber } from './prober';
import { serversFromLinks } from './testing/lab-servers';
import { isRunning, processesOf, waitUntil } from './testing/processes';

let lab: InProcessLab;
let servers: Server[];
let core: CoreProfile;
let runtimeDir: string;
let prober: CoreProber;
const log = memoryLogger('debug');

beforeAll(async () => {
  lab = await startLab({ servers: 8, latency: [20, 40] });
  servers = serversFromLinks(lab.info.servers.map((s) => s.shareLink));
  core = await detectCore('/usr/bin/v2ray');
  runtimeDir = await mkdtemp(join(tmpdir(), 'steadfast-prober-'));
  prober = new CoreProber({ core, runtimeDir, logger: log.logger, rebuildDebounceMs: 50 });
  prober.setServers(servers);
  await prober.settled();
});

afterAll(async () => {
  await prober?.close();
  await lab?.stop();
  await rm(runtimeDir, { recursive: true, force: true });
});

const index = (protocol: string) => lab.info.servers.findIndex((s) => s.protocol === protocol);
const timed = async (run: () => Promise<ProbeOutcome>) => {
  const began = performance.now();
  const outcome = await run();
  return { outcome, ms: performance.now() - began };
};

async function withFault<T>(i: number, fault: Parameters<InProcessLab['setFault']>[1], run: () => Promise<T>): Promise<T> {
  await lab.setFault(lab.info.servers[i]!.id, fault);
  try {
    return await run();
  } finally {
    await lab.setFault(lab.info.servers[i]!.id, { fault: 'none', latencyMs: lab.info.servers[i]!.latencyMs });
  }
}

describe('CoreProber against the lab', () => {
  it('hosts every lab server and answers a probe through each with a delay', async () => {
    for (const server of servers) {
      expect(prober.readiness(server.id)).toEqual({ ready: true });
      const outcome = await prober.probe(server.id, { url: lab.info.target, timeoutMs: 5000 });
      expect(outcome, server.name).toMatchObject({ ok: true });
    }
  });

  it('a healthy server’s delay grows with the injected latency (50 vs 200 ms)', async () => {
    const i = index('vless');
    const measure = async (latencyMs: number) =>
      withFault(i, { fault: 'none', latencyMs }, async () => {
        const delays: number[] = [];
        for (let k = 0; k < 3; k++) {
          const outcome = await prober.probe(servers[i]!.id, { url: lab.info.target, timeoutMs: 5000 });
          if (!outcome.ok) throw new Error(outcome.error.message);
          delays.push(outcome.delayMs);
        }
        return Math.min(...delays);
      });
    const at50 = await measure(50);
    const at200 = await measure(200);
    // The latency is added each way: one request/response costs one round trip more.
    expect(at50).toBeGreaterThanOrEqual(100);
    expect(at200 - at50).toBeGreaterThanOrEqual(2 * 150 * 0.9);
    console.info(`probe delay: ${at50} ms at 50 ms latency, ${at200} ms at 200 ms`);
  });

  it('the delay is one round trip whatever the transport: TLS and WebSocket handshakes are not counted', async () => {
    // Servers 0..7: tcp and ws / tls variants of each protocol (the lab changes variants every 4).
    const byTransport = new Map<string, number>();
    for (let i = 0; i < servers.length; i++) {
      const s = servers[i]!;
      byTransport.set(`${s.transport.network}+${s.security.type}`, i);
    }
    expect(byTransport.size).toBeGreaterThanOrEqual(3);
    for (const [kind, i] of byTransport) {
      const delay = await withFault(i, { fault: 'none', latencyMs: 100 }, async () => {
        const delays: number[] = [];
        for (let k = 0; k < 3; k++) {
          const outcome = await prober.probe(servers[i]!.id, { url: lab.info.target, timeoutMs: 5000 });
          if (!outcome.ok) throw new Error(`${kind}: ${outcome.error.message}`);
          delays.push(outcome.delayMs);
        }
        return Math.min(...delays);
      });
      // 100 ms each way: one round trip is 200 ms; a cold TLS or WebSocket connection would be 400–600.
      expect(delay, kind).toBeGreaterThanOrEqual(190);
      expect(delay, kind).toBeLessThan(300);
    }
  });

  it('a blackholed server times out at the probe’s deadline (±10%)', async () => {
    const i = index('vmess');
    const { outcome, ms } = await withFault(i, { fault: 'blackhole' }, () => timed(() => prober.probe(servers[i]!.id, { url: lab.info.target, timeoutMs: 2000 })));
    expect(outcome).toMatchObject({ ok: false, error: { kind: 'timeout' } });
    expect(ms).toBeGreaterThanOrEqual(1800);
    expect(ms).toBeLessThanOrEqual(2200);
    console.info(`blackhole: timeout after ${Math.round(ms)} ms (deadline 2000)`);
  });

  // A reset usually comes after the dial succeeded: the core says so at once. Under load the RST
  // can beat the dial's own completion, and the core then retries the dial like a refused one.
  it.each([
    ['vmess', 2000],
    ['vless', 2000],
    ['trojan', 1000],
    ['shadowsocks', 1000],
  ] as const)('a reset %s server fails as reset as soon as the core gives up (at once, at most ~%i ms)', async (protocol, givesUpMs) => {
    const i = index(protocol);
    const { outcome, ms } = await withFault(i, { fault: 'reset' }, () => timed(() => prober.probe(servers[i]!.id, { url: lab.info.target, timeoutMs: 5000 })));
    // v2ray 4.34 sometimes reads the RST of a connection that had already sent its request as an
    // end of stream (seen once in two CI runs on vless: "failed to read response version > EOF",
    // after 11 ms): it then says the server closed without answering. Either way it fails at once.
    const failure = outcome.ok ? null : outcome.error;
    if (failure?.kind === 'handshake') expect(failure.message, `after ${Math.round(ms)} ms`).toContain('EOF');
    else expect(outcome, `after ${Math.round(ms)} ms`).toMatchObject({ ok: false, error: { kind: 'reset', message: expect.stringContaining(lab.info.servers[i]!.relay) } });
    expect(ms, JSON.stringify(outcome)).toBeLessThan(givesUpMs + 400);
    console.info(`reset (${protocol}): ${Math.round(ms)} ms: ${outcome.ok ? '' : outcome.error.message}`);
  });

  it.each([
    ['vmess', 2000],
    ['vless', 2000],
    ['trojan', 1000],
    ['shadowsocks', 1000],
  ] as const)('a refusing %s server fails as refused as soon as the core gives up (~%i ms)', async (protocol, givesUpMs) => {
    const i = index(protocol);
    const { outcome, ms } = await withFault(i, { fault: 'refuse' }, () => timed(() => prober.probe(servers[i]!.id, { url: lab.info.target, timeoutMs: 5000 })));
    expect(outcome).toMatchObject({ ok: false, error: { kind: 'refused', message: expect.stringContaining(lab.info.servers[i]!.relay) } });
    expect(ms).toBeGreaterThanOrEqual(givesUpMs * 0.9);
    expect(ms).toBeLessThan(givesUpMs + 400);
    console.info(`refuse (${protocol}): ${Math.round(ms)} ms`);
  });

  it('any HTTP response from a URL the user set is an answer; a URL that promises 204 answering anything else is a captive portal', async () => {
    // The IP-info stand-in answers 200, the target 404 outside its routes: both answers from a user's URL.
    expect(await prober.probe(servers[0]!.id, { url: lab.info.ipinfo, timeoutMs: 5000 })).toMatchObject({ ok: true });
    expect(await prober.probe(servers[0]!.id, { url: lab.info.target.replace('/generate_204', '/nothing-here'), timeoutMs: 5000 })).toMatchObject({ ok: true });
    const portal = await prober.probe(servers[0]!.id, { url: lab.info.target.replace('/generate_204', '/portal/generate_204'), timeoutMs: 5000 });
    expect(portal).toMatchObject({ ok: false, error: { kind: 'http-status', message: 'HTTP 404 instead of 204: a captive portal or a block page answered in its place' } });
    expect(await prober.probe(servers[0]!.id, { url: lab.info.target, timeoutMs: 5000, expectStatus: 200 })).toMatchObject({ ok: false, error: { message: 'HTTP 204 instead of 200' } });
  });

  it('fetches through a server: the IP-info stand-in sees that server’s exit IP', async () => {
    for (const i of [0, 3]) {
      const result = await prober.fetchThrough(servers[i]!.id, { url: lab.info.ipinfo, timeoutMs: 5000 });
      expect(result.ok).toBe(true);
      if (!result.ok) return;
      expect(result.status).toBe(200);
      expect(JSON.parse(result.body.toString('utf8')).ip).toBe(lab.info.servers[i]!.exitIp);
      expect(result.headersMs).toBeLessThanOrEqual(result.elapsedMs);
    }
    const capped = await prober.fetchThrough(servers[1]!.id, { url: `${lab.info.download}?bytes=200000`, timeoutMs: 5000, maxBytes: 50_000 });
    expect(capped.ok && capped.body.length).toBe(50_000);
  });

  it('pings a server’s own address directly', async () => {
    const outcome = await prober.tcpPing(servers[0]!, 1000);
    expect(outcome).toMatchObject({ ok: true });
  });

  it('says why a server it cannot run is not probed', async () => {
    const reality: Server = { ...servers[1]!, id: 'reality-1', name: 'needs Xray', security: { type: 'reality', publicKey: 'k', shortId: '01', sni: 'a.example' } } as Server;
    prober.setServers([...servers, reality]);
    await prober.settled();
    const readiness = prober.readiness('reality-1');
    expect(readiness).toMatchObject({ ready: false, reason: expect.stringContaining('not supported by v2ray 4.34.0') });
    expect(await prober.probe('reality-1', { url: lab.info.target, timeoutMs: 1000 })).toMatchObject({ ok: false, error: { kind: 'unsupported' } });
    expect(prober.readiness(servers[0]!.id)).toEqual({ ready: true });
  });

  it('rebuilds when the set changes, without failing probes under way', async () => {
    const slow = index('vmess');
    await lab.setFault(lab.info.servers[slow]!.id, { fault: 'none', latencyMs: 400 });
    try {
      const inFlight = prober.probe(servers[slow]!.id, { url: lab.info.target, timeoutMs: 5000 });
      await new Promise((r) => setTimeout(r, 100));
      const kept = servers.filter((_, k) => k !== 2);
      prober.setServers(kept);
      await prober.settled();
      expect(prober.readiness(servers[2]!.id)).toMatchObject({ ready: false, reason: expect.stringContaining('not in') });
      expect(await inFlight).toMatchObject({ ok: true });
      expect(await prober.probe(servers[0]!.id, { url: lab.info.target, timeoutMs: 5000 })).toMatchObject({ ok: true });
      prober.setServers(servers);
      await prober.settled();
      expect(prober.readiness(servers[2]!.id)).toEqual({ ready: true });
    } finally {
      await lab.setFault(lab.info.servers[slow]!.id, { fault: 'none', latencyMs: lab.info.servers[slow]!.latencyMs });
    }
  });

  it('restarts its core after a crash', async () => {
    // A rebuild retires the previous core once its probes are done, after the new one is up: the
    // test before this one may leave one still stopping.
    expect(await waitUntil(() => processesOf(core.path, join(runtimeDir, 'prober-')).length === 1, 10_000, 50)).toBe(true);
    const before = processesOf(core.path, join(runtimeDir, 'prober-'));
    expect(before).toHaveLength(1);
    process.kill(before[0]!, 'SIGKILL');
    expect(await waitUntil(() => prober.readiness(servers[0]!.id).ready === false, 1000)).toBe(true);
    expect(await waitUntil(() => prober.readiness(servers[0]!.id).ready, 3000)).toBe(true);
    expect(await prober.probe(servers[0]!.id, { url: lab.info.target, timeoutMs: 5000 })).toMatchObject({ ok: true });
    expect(log.lines.some((l) => /WARNING PROBER prober core killed by SIGKILL; restart 1 in 200 ms/.test(l))).toBe(true);
    expect(isRunning(before[0]!)).toBe(false);
  });

  it('leaves no core running after close', async () => {
    await prober.close();
    expect(processesOf(core.path, join(runtimeDir, 'prober-'))).toEqual([]);
  });
});
