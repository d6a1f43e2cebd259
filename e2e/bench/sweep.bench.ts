/**
 * One full background sweep of the monitor over 200 lab servers (latencies spread over
 * 20–300 ms), `workers` 10:
 * - wall time of the sweep (monitor start → the cycle's last result);
 * - the lower bound: the sum of each server's probe time measured alone, one at a time, in the
 *   same run, divided by the workers; and the ratio wall / lower bound (target ≤ 1.15);
 * - the Spearman correlation between the delays the monitor measured and the latency the lab
 *   injected (target ≥ 0.98);
 * - probes per server during the sweep, from the lab's relay counters (target: exactly one).
 * IP-info lookups are off so every relay connection is a probe.
 *
 * `--prober real` (default): the app's CoreProber (app/tunnel/prober.ts). Each probe is one fresh
 * request, so its delay includes the server's handshakes: a TLS or WebSocket server measures 2–3
 * round trips of the path where a plain TCP one measures 1, and the delay is not a function of
 * the injected latency alone (Spearman ≈ 0.8 on the lab's protocol mix).
 * `--prober unified`: `UnifiedDelayProber` below, built from the same parts (the core adapter's
 * prober config, one HTTP inbound per server): one fresh CONNECT tunnel through the server, two
 * GETs on it, the second one timed — still one connection to the server, and a delay equal to the
 * path's round trip whatever the protocol (what some clients call "unified delay").
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { connect as netConnect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { connect as tlsConnect } from 'node:tls';
import type { ProbeOutcome } from '../../shared/domain/measurement';
import type { Server, ServerId } from '../../shared/domain/server';
import { monitorSettingsSchema } from '../../shared/settings';
import { systemClock } from '../../app/clock';
import { coreRunArgs, detectCore, proberConfig, writeConfigFile } from '../../app/core';
import { Logger } from '../../app/log/logger';
import { Monitor } from '../../app/monitor/monitor';
import type { FetchThroughRequest, FetchThroughResult, ProbeRequest, Readiness, ServerProber } from '../../app/monitor/ports';
import { spawnSupervised, stopSupervised } from '../../app/process/supervised';
import { accepts, freePorts } from '../../app/tunnel/ports';
import { requestThroughProxy } from '../../app/tunnel/proxy-request';
import { CoreProber } from '../../app/tunnel/prober';
import { tcpPing } from '../../app/tunnel/tcp-ping';
import { serversFromLinks } from '../../app/tunnel/testing/lab-servers';
import { startLab } from '../lab/index';
import { type Benchmark, option, round } from './harness';

/** A real v2ray core with one HTTP inbound per server; each probe times a second GET on a fresh tunnel. */
class UnifiedDelayProber implements ServerProber {
  private constructor(
    private readonly ports: Map<ServerId, number>,
    private readonly stopCore: () => Promise<void>,
  ) {}

  static async start(servers: Server[], corePath = '/usr/bin/v2ray'): Promise<UnifiedDelayProber> {
    const core = await detectCore(corePath);
    const unique = new Set<number>();
    while (unique.size < servers.length) for (const port of await freePorts(Math.min(200, servers.length - unique.size))) unique.add(port);
    const ports = [...unique];
    const dir = await mkdtemp(join(tmpdir(), 'steadfast-sweep-'));
    const file = await writeConfigFile(dir, 'prober', proberConfig({ entries: servers.map((server, i) => ({ server, port: ports[i] as number })), core, listen: '127.0.0.1' }));
    const child = spawnSupervised(core.path, coreRunArgs(core, file));
    child.stdout?.resume();
    child.stderr?.resume();
    const stop = async () => {
      await stopSupervised(child);
      await rm(dir, { recursive: true, force: true });
    };
    const deadline = performance.now() + 30_000;
    for (const port of ports) {
      while (!(await accepts(port))) {
        if (performance.now() > deadline) {
          await stop();
          throw new Error(`the prober core did not open port ${port} within 30 s`);
        }
        await new Promise((r) => setTimeout(r, 20));
      }
    }
    return new UnifiedDelayProber(new Map(servers.map((s, i) => [s.id, ports[i] as number])), stop);
  }

  stop(): Promise<void> {
    return this.stopCore();
  }

  async probe(serverId: ServerId, request: ProbeRequest): Promise<ProbeOutcome> {
    const port = this.ports.get(serverId);
    if (port === undefined) return { ok: false, error: { kind: 'unsupported', message: 'not in the prober' } };
    return unifiedProbe(port, request);
  }

  async fetchThrough(serverId: ServerId, request: FetchThroughRequest): Promise<FetchThroughResult> {
    const port = this.ports.get(serverId);
    if (port === undefined) return { ok: false, error: { kind: 'unsupported', message: 'not in the prober' }, elapsedMs: 0 };
    const result = await requestThroughProxy({ proxyUrl: `http://127.0.0.1:${port}`, url: request.url, timeoutMs: request.timeoutMs, maxBytes: request.maxBytes ?? 64 * 1024, signal: request.signal });
    if (!result.ok) return { ok: false, error: { kind: result.failure.kind, message: result.failure.message }, elapsedMs: result.elapsedMs };
    return { ok: true, status: result.status, body: result.body, headersMs: result.headersMs, elapsedMs: result.elapsedMs };
  }

  tcpPing(server: Server, timeoutMs: number, signal?: AbortSignal): Promise<ProbeOutcome> {
    return tcpPing(server, timeoutMs, signal);
  }

  readiness(serverId: ServerId): Readiness {
    return this.ports.has(serverId) ? { ready: true } : { ready: false, reason: 'not in the prober' };
  }
}

/**
 * One CONNECT tunnel through the server's inbound, two GETs on it; the second is timed. The first
 * pays for the server's handshakes (TCP, TLS, WebSocket); the second is one round trip of the path.
 */
function unifiedProbe(port: number, request: ProbeRequest): Promise<ProbeOutcome> {
  const target = new URL(request.url);
  const https = target.protocol === 'https:';
  const hostPort = `${target.hostname}:${target.port || (https ? 443 : 80)}`;
  const expected = request.expectStatus ?? 204;
  return new Promise((resolve) => {
    const raw = netConnect({ port, host: '127.0.0.1' });
    let socket: Socket = raw;
    let buffer = '';
    let phase: 'connect' | 'first' | 'second' = 'connect';
    let sentAt = 0;
    const finish = (outcome: ProbeOutcome) => {
      clearTimeout(timer);
      raw.destroy();
      socket.destroy();
      resolve(outcome);
    };
    const timer = setTimeout(() => finish({ ok: false, error: { kind: 'timeout', message: `no answer within ${request.timeoutMs} ms` } }), request.timeoutMs);
    request.signal?.addEventListener('abort', () => finish({ ok: false, error: { kind: 'unknown', message: 'cancelled' } }), { once: true });
    const get = () => {
      sentAt = performance.now();
      socket.write(`GET ${target.pathname}${target.search} HTTP/1.1\r\nHost: ${target.host}\r\nUser-Agent: steadfast\r\n\r\n`);
    };
    const onData = (chunk: Buffer) => {
      buffer += chunk.toString('latin1');
      const end = buffer.indexOf('\r\n\r\n');
      if (end < 0) return;
      const status = Number(buffer.slice(9, 12));
      buffer = buffer.slice(end + 4);
      if (phase === 'connect') {
        if (status !== 200) return finish({ ok: false, error: { kind: 'handshake', message: `CONNECT answered ${status}` } });
        phase = 'first';
        if (https) {
          raw.off('data', onData);
          socket = tlsConnect({ socket: raw, servername: target.hostname }, get);
          socket.on('data', onData);
          socket.on('error', (e) => finish({ ok: false, error: { kind: 'tls', message: e.message } }));
        } else get();
        return;
      }
      if (status !== expected) return finish({ ok: false, error: { kind: 'http-status', message: `HTTP ${status} instead of ${expected}` } });
      if (phase === 'first') {
        phase = 'second';
        get();
        return;
      }
      finish({ ok: true, delayMs: Math.round(performance.now() - sentAt) });
    };
    raw.on('connect', () => raw.write(`CONNECT ${hostPort} HTTP/1.1\r\nHost: ${hostPort}\r\n\r\n`));
    raw.on('data', onData);
    raw.on('error', (e) => finish({ ok: false, error: { kind: 'network', message: e.message } }));
    raw.on('close', () => finish({ ok: false, error: { kind: 'reset', message: 'the tunnel closed before an answer' } }));
  });
}

/** Ranks with ties sharing their average rank. */
function ranks(values: number[]): number[] {
  const order = values.map((v, i) => ({ v, i })).sort((a, b) => a.v - b.v);
  const result = new Array<number>(values.length);
  for (let start = 0; start < order.length; ) {
    let end = start;
    while (end + 1 < order.length && order[end + 1]?.v === order[start]?.v) end++;
    for (let k = start; k <= end; k++) result[(order[k] as { i: number }).i] = (start + end) / 2 + 1;
    start = end + 1;
  }
  return result;
}

export function spearman(a: number[], b: number[]): number {
  const ra = ranks(a);
  const rb = ranks(b);
  const mean = (xs: number[]) => xs.reduce((s, x) => s + x, 0) / xs.length;
  const ma = mean(ra);
  const mb = mean(rb);
  let num = 0;
  let da = 0;
  let db = 0;
  for (let i = 0; i < ra.length; i++) {
    const x = (ra[i] as number) - ma;
    const y = (rb[i] as number) - mb;
    num += x * y;
    da += x * x;
    db += y * y;
  }
  return num / Math.sqrt(da * db);
}

export const sweepBenchmark: Benchmark = {
  name: 'sweep',
  description: 'one monitor sweep over 200 lab servers (20–300 ms), workers 10: wall time vs lower bound, Spearman, probes per server',
  async run(args) {
    const count = option(args, 'servers', 200);
    const workers = option(args, 'workers', 10);
    const timeoutMs = option(args, 'timeout', 5000);
    const which = option(args, 'prober', 'real') === 'unified' ? 'unified' : 'real';
    const lab = await startLab({ servers: count, subscriptions: 1, latency: [20, 300] });
    let prober: (ServerProber & { stop(): Promise<void> }) | null = null;
    const runtimeDir = await mkdtemp(join(tmpdir(), 'steadfast-sweep-run-'));
    try {
      const servers = serversFromLinks(lab.info.servers.map((s) => s.shareLink));
      const labIdOf = new Map(servers.map((s, i) => [s.id, lab.info.servers[i]?.id as string]));
      if (which === 'unified') {
        prober = await UnifiedDelayProber.start(servers);
      } else {
        const real = new CoreProber({ core: await detectCore('/usr/bin/v2ray'), runtimeDir, logger: new Logger() });
        real.setServers(servers);
        await real.settled();
        const notReady = servers.filter((s) => !real.readiness(s.id).ready).length;
        if (notReady > 0) throw new Error(`${notReady} servers are not ready in the prober`);
        prober = Object.assign(real, { stop: () => real.close() });
      }
      const url = lab.info.target;
      const settings = monitorSettingsSchema.parse({ urls: [url], workers, urlTestTimeoutMs: timeoutMs, intervalMs: 24 * 3600_000, idleTimeoutMs: 0 });
      const monitor = new Monitor({ prober, clock: systemClock, logger: new Logger(), settings, cacheFile: null, servers: () => servers, selections: () => [], ipInfo: false });

      // The sweep.
      const before = await lab.counters();
      const done = new Promise<void>((resolve) => {
        let started = false;
        monitor.onProgress((p) => {
          if (p.running) started = true;
          else if (started) resolve();
        });
      });
      const t0 = performance.now();
      await monitor.start();
      await done;
      const wallMs = performance.now() - t0;
      const after = await lab.counters();
      const statuses = monitor.snapshot();
      await monitor.stop();

      // The same servers alone, one at a time.
      const alone: number[] = [];
      for (const server of servers) {
        const started = performance.now();
        await prober.probe(server.id, { url, timeoutMs });
        alone.push(performance.now() - started);
      }
      const lowerBoundMs = alone.reduce((s, x) => s + x, 0) / workers;

      const answered = statuses.filter((s) => s.delayMs !== null);
      const injected = answered.map((s) => lab.info.servers.find((l) => l.id === labIdOf.get(s.serverId))?.latencyMs as number);
      const probes = servers.map((s) => {
        const id = labIdOf.get(s.id) as string;
        return (after.servers[id]?.connections ?? 0) - (before.servers[id]?.connections ?? 0);
      });
      return {
        servers: count,
        workers,
        prober: which === 'real' ? 'CoreProber (app/tunnel/prober.ts), v2ray 4.34' : 'UnifiedDelayProber (second GET on a fresh tunnel), v2ray 4.34',
        sweep_wall_ms: round(wallMs),
        lower_bound_ms: round(lowerBoundMs),
        ratio: round(wallMs / lowerBoundMs, 3),
        alone_probe_median_ms: round([...alone].sort((a, b) => a - b)[Math.floor(alone.length / 2)] as number),
        answered: answered.length,
        failed: statuses.length - answered.length,
        spearman: round(spearman(answered.map((s) => s.delayMs as number), injected), 4),
        probes_per_server_min: Math.min(...probes),
        probes_per_server_max: Math.max(...probes),
        servers_with_exactly_one_probe: probes.filter((p) => p === 1).length,
        generate204_requests: after.target.generate204 - before.target.generate204,
      };
    } finally {
      await prober?.stop();
      await lab.stop();
      await rm(runtimeDir, { recursive: true, force: true });
    }
  },
};
