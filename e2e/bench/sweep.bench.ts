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
 * The prober is the app's CoreProber (app/tunnel/prober.ts): one fresh connection per probe, two
 * requests on it, the second timed, so a TLS or WebSocket server's handshakes do not inflate its
 * delay and the delay tracks the path's round trip whatever the protocol.
 *
 * `--cores xray,v2ray,sing-box` (default: every core this machine has) sweeps the same lab through
 * each core's prober in one run, keyed by core name, with the prober core's resident memory at
 * the end of its sweep (`prober_rss_mb`).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { monitorSettingsSchema } from '../../shared/settings';
import { systemClock } from '../../app/clock';
import { detectCore, isCoreName } from '../../app/core';
import { findLabCore, labCore } from '../../app/core/testing/cores';
import { processesOf } from '../../app/tunnel/testing/processes';
import { residentMb } from './switch.bench';
import type { Lab } from '../lab';
import { Logger } from '../../app/log/logger';
import { testMonitor } from '../../app/monitor/testing/test-monitor';
import { CoreProber } from '../../app/tunnel/prober';
import { serversFromLinks } from '../../app/tunnel/testing/lab-servers';
import { startLab } from '../lab/index';
import { type Benchmark, option, round } from './harness';

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
    // Every core this machine has: sing-box's prober is the one the monitor uses for the servers
    // sing-box carries, and it hosts the lab's v2ray-world kinds as well, so its column sweeps them.
    const cores = option(args, 'cores', option(args, 'core', (['xray', 'v2ray', 'sing-box'] as const).filter((c) => findLabCore(c)).join(',')))
      .split(',')
      .map((c) => c.trim())
      .filter(Boolean);
    const lab = await startLab({ servers: count, subscriptions: 1, latency: [20, 300] });
    try {
      const perCore: Record<string, unknown> = {};
      for (const name of cores) perCore[name] = await sweepThrough(lab, isCoreName(name) ? labCore(name) : name, { workers, timeoutMs });
      return { servers: count, workers, cores: perCore };
    } finally {
      await lab.stop();
    }
  },
};

/** One sweep of the lab's servers through `corePath`'s prober. */
async function sweepThrough(lab: Lab, corePath: string, o: { workers: number; timeoutMs: number }): Promise<Record<string, unknown>> {
  const { workers, timeoutMs } = o;
  let prober: CoreProber | null = null;
  const runtimeDir = await mkdtemp(join(tmpdir(), 'steadfast-sweep-run-'));
  try {
    const servers = serversFromLinks(lab.info.servers.map((s) => s.shareLink));
    const labIdOf = new Map(servers.map((s, i) => [s.id, lab.info.servers[i]?.id as string]));
    const core = await detectCore(corePath);
    prober = new CoreProber({ core, runtimeDir, logger: new Logger() });
    prober.setServers(servers);
    await prober.settled();
    const ready = prober;
    const notReady = servers.filter((s) => !ready.readiness(s.id).ready).length;
    if (notReady > 0) throw new Error(`${notReady} servers are not ready in the prober`);
    const url = lab.info.target;
    const settings = monitorSettingsSchema.parse({ urls: [url], transferTestBytes: 0, workers, urlTestTimeoutMs: timeoutMs, intervalMs: 24 * 3600_000, idleTimeoutMs: 0 });
    const monitor = testMonitor({ prober, clock: systemClock, logger: new Logger(), settings, cacheFile: null, servers: () => servers, selections: () => [], ipInfo: false });

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
      prober: `CoreProber (app/tunnel/prober.ts), ${core.family} ${core.version}`,
      prober_rss_mb: residentMb(processesOf(core.path, runtimeDir)),
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
    await prober?.close();
    await rm(runtimeDir, { recursive: true, force: true });
  }
}
