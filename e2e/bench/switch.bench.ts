/**
 * Switching servers: the time from `tunnel.switch(server)` to the first byte of an answer through
 * the new server (a GET of the lab's generate_204 through the local HTTP inbound on a fresh
 * connection; its status line is the first byte). A switch restarts the core, so the figure is
 * core stop + core start + one request through the new server. Split into its parts:
 * - `switch_call`: switch() itself (old core stopped, new one accepting connections);
 * - `core_start`: spawn → the core says it started and its inbound accepts;
 * - `first_byte_after_ready`: the request alone (one round trip to the server and the target).
 * The lab's latency is fixed (`--latency`, default 20 ms each way) so the request part is known.
 * Servers are taken in turn, so every switch changes server and protocol.
 * `--cores xray,v2ray` (default: every main core this machine has) runs the same trials through
 * each core in one run, on one lab, keyed by core name, with the core process's resident memory
 * after the trials (`core_rss_mb`): Xray is what users run, v2ray 4.34 the control.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { ProxyAgent, request } from 'undici';
import { readFileSync } from 'node:fs';
import { detectCore, isCoreName } from '../../app/core';
import { findLabCore, labCore } from '../../app/core/testing/cores';
import { processesOf } from '../../app/tunnel/testing/processes';
import { Logger } from '../../app/log/logger';
import { TunnelController } from '../../app/tunnel/controller';
import { freePorts } from '../../app/tunnel/ports';
import { serversFromLinks } from '../../app/tunnel/testing/lab-servers';
import type { Server } from '../../shared/domain/server';
import { startLab } from '../lab/index';
import { type Benchmark, median, option, quantile, round } from './harness';

async function firstByte(proxy: string, url: string): Promise<number> {
  const agent = new ProxyAgent(proxy);
  const began = performance.now();
  try {
    const response = await request(url, { dispatcher: agent, signal: AbortSignal.timeout(10_000) });
    const at = performance.now();
    await response.body.dump();
    if (response.statusCode !== 204) throw new Error(`HTTP ${response.statusCode} through the new server`);
    return at - began;
  } finally {
    await agent.destroy();
  }
}

const stats = (prefix: string, values: number[]) => ({
  [`${prefix}_median_ms`]: round(median(values)),
  [`${prefix}_p95_ms`]: round(quantile(values, 0.95)),
  [`${prefix}_min_ms`]: round(Math.min(...values)),
  [`${prefix}_max_ms`]: round(Math.max(...values)),
});

export const switchBenchmark: Benchmark = {
  name: 'switch',
  description: 'time from switch() to the first byte through the new server (lab), with core start time',
  async run(args) {
    const trials = option(args, 'trials', 30);
    const latencyMs = option(args, 'latency', 20);
    const serverCount = option(args, 'servers', 8);
    const cores = option(args, 'cores', option(args, 'core', ['xray', 'v2ray'].filter((c) => findLabCore(c as 'xray' | 'v2ray')).join(',')))
      .split(',')
      .map((c) => c.trim())
      .filter(Boolean);
    const lab = await startLab({ servers: serverCount, latency: [latencyMs, latencyMs] });
    try {
      const servers = serversFromLinks(lab.info.servers.map((s) => s.shareLink));
      const perCore: Record<string, unknown> = {};
      for (const name of cores) perCore[name] = await trialsThrough(isCoreName(name) ? labCore(name) : name, servers, lab.info.target, trials);
      return {
        trials,
        lab_latency_each_way_ms: latencyMs,
        servers: servers.length,
        protocols: [...new Set(servers.map((s) => `${s.protocol}/${s.transport.network}/${s.security.type}`))],
        cores: perCore,
      };
    } finally {
      await lab.stop();
    }
  },
};

/** The switch trials through one main core; its figures and memory. */
async function trialsThrough(corePath: string, servers: Server[], target: string, trials: number): Promise<Record<string, unknown>> {
  const runtimeDir = await mkdtemp(join(tmpdir(), 'steadfast-bench-switch-'));
  const [httpPort, socksPort] = (await freePorts(2)) as [number, number];
  const core = await detectCore(corePath);
  const tunnel = new TunnelController({ core, runtimeDir, logger: new Logger({ level: 'error' }), httpPort, socksPort });
  try {
    const proxy = `http://127.0.0.1:${httpPort}`;
    await tunnel.connect(servers[0]!);
    await firstByte(proxy, target);
    const total: number[] = [];
    const call: number[] = [];
    const start: number[] = [];
    const request: number[] = [];
    for (let i = 1; i <= trials; i++) {
      const server = servers[i % servers.length]!;
      const began = performance.now();
      await tunnel.switch(server);
      const ready = performance.now();
      const byte = await firstByte(proxy, target);
      total.push(ready - began + byte);
      call.push(ready - began);
      start.push(tunnel.lastStartMs);
      request.push(byte);
    }
    return {
      core: `${core.family} ${core.version}`,
      ...stats('switch_to_first_byte', total),
      ...stats('switch_call', call),
      ...stats('core_start', start),
      ...stats('first_byte_after_ready', request),
      core_rss_mb: residentMb(processesOf(core.path, runtimeDir)),
    };
  } finally {
    await tunnel.disconnect();
    await rm(runtimeDir, { recursive: true, force: true });
  }
}

/** Resident memory of these processes, in MB (Linux /proc), or null where it cannot be read. */
export function residentMb(pids: number[]): number | null {
  let kb = 0;
  for (const pid of pids) {
    try {
      const line = readFileSync(`/proc/${pid}/status`, 'utf8').split('\n').find((l) => l.startsWith('VmRSS:'));
      kb += Number(line?.match(/(\d+)/)?.[1] ?? 0);
    } catch {
      return null;
    }
  }
  return pids.length > 0 ? round(kb / 1024, 1) : null;
}
