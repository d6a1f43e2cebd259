/**
 * Switching servers: the time from `tunnel.switch(server)` to the first byte of an answer through
 * the new server (a GET of the lab's generate_204 through the local HTTP inbound on a fresh
 * connection; its status line is the first byte). A switch restarts the core, so the figure is
 * core stop + core start + one request through the new server. Split into its parts:
 * - `switch_call`: switch() itself (old core stopped, new one accepting connections);
 * - `core_start`: spawn → the core says it started and its inbound accepts;
 * - `first_byte_after_ready`: the request alone (one round trip to the server and the target, plus
 *   the handshakes of the protocol: TLS, QUIC, a ShadowTLS site's; also given per protocol).
 * The lab's latency is fixed (`--latency`, default 20 ms each way) so the request part is known.
 * Servers are taken in turn, so every switch changes server and protocol.
 * `--cores xray,v2ray,sing-box` (default: every core this machine has) runs the trials through
 * each core in one run, keyed by core name, with the cores' resident memory after the trials
 * (`core_rss_mb`): Xray is what users run, v2ray 4.34 the control. sing-box is never the main core:
 * it carries what Xray cannot, behind it, so its column switches among the lab's servers only
 * sing-box carries (TUIC v5, ShadowTLS v3, AnyTLS, Hysteria v1, from the lab's modern block, with
 * the same fixed latency), as the app runs them: Xray's inbounds and a sing-box carrier, both
 * restarted by a switch; its memory is both processes'.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { ProxyAgent, request } from 'undici';
import { readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { chooseCarrier, type CoreProfile, detectCore, isCoreName } from '../../app/core';
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
    const cores = option(args, 'cores', option(args, 'core', (['xray', 'v2ray', 'sing-box'] as const).filter((c) => findLabCore(c)).join(',')))
      .split(',')
      .map((c) => c.trim())
      .filter(Boolean);
    const carried = cores.includes('sing-box');
    const lab = await startLab({ servers: serverCount, latency: [latencyMs, latencyMs], modern: carried });
    const trustBefore = process.env.SSL_CERT_FILE;
    try {
      const all = serversFromLinks(lab.info.servers.map((s) => s.shareLink));
      const servers = all.filter((_, i) => !lab.info.servers[i]?.kind);
      const perCore: Record<string, unknown> = {};
      for (const name of cores) {
        if (name !== 'sing-box') {
          perCore[name] = await trialsThrough({ core: await detectCore(isCoreName(name) ? labCore(name) : name) }, servers, lab.info.target, trials);
          continue;
        }
        const xray = await detectCore(labCore('xray'));
        const singBox = await detectCore(labCore('sing-box'));
        const mine = all.filter((server) => chooseCarrier(server, undefined, xray, [singBox]).kind === 'carried');
        // ShadowTLS verifies the site it borrows against the system store, as a user's machine
        // trusts a real site: the lab's site is put there (Go cores read SSL_CERT_FILE).
        const store = join(tmpdir(), `steadfast-switch-trust-${process.pid}.pem`);
        await writeFile(store, lab.modernCertificatePem);
        process.env.SSL_CERT_FILE = store;
        perCore[name] = { carried: mine.map((s) => s.protocol), ...(await trialsThrough({ core: xray, carriers: [singBox] }, mine, lab.info.target, trials)) };
        await rm(store, { force: true });
      }
      return {
        trials,
        lab_latency_each_way_ms: latencyMs,
        servers: servers.length,
        protocols: [...new Set(servers.map((s) => `${s.protocol}/${s.transport.network}/${s.security.type}`))],
        cores: perCore,
      };
    } finally {
      if (trustBefore === undefined) delete process.env.SSL_CERT_FILE;
      else process.env.SSL_CERT_FILE = trustBefore;
      await lab.stop();
    }
  },
};

/** The switch trials through one main core (and its carriers); their figures and memory. */
async function trialsThrough(cores: { core: CoreProfile; carriers?: CoreProfile[] }, servers: Server[], target: string, trials: number): Promise<Record<string, unknown>> {
  const runtimeDir = await mkdtemp(join(tmpdir(), 'steadfast-bench-switch-'));
  const [httpPort, socksPort] = (await freePorts(2)) as [number, number];
  const { core, carriers = [] } = cores;
  const tunnel = new TunnelController({ core, carriers, runtimeDir, logger: new Logger({ level: 'error' }), httpPort, socksPort });
  try {
    const proxy = `http://127.0.0.1:${httpPort}`;
    await tunnel.connect(servers[0]!);
    await firstByte(proxy, target);
    const total: number[] = [];
    const call: number[] = [];
    const start: number[] = [];
    const request: number[] = [];
    // Per protocol: its handshakes' round trips at the lab's fixed latency are a floor no switch can go under.
    const byProtocol = new Map<string, { total: number[]; request: number[] }>();
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
      const kind = byProtocol.get(server.protocol) ?? { total: [], request: [] };
      kind.total.push(ready - began + byte);
      kind.request.push(byte);
      byProtocol.set(server.protocol, kind);
    }
    const perProtocol = (pick: (kind: { total: number[]; request: number[] }) => number[]) =>
      Object.fromEntries([...byProtocol].map(([protocol, kind]) => [protocol, round(median(pick(kind)))]));
    return {
      core: [core, ...carriers].map((c) => `${c.family} ${c.version}`).join(' + '),
      ...stats('switch_to_first_byte', total),
      ...stats('switch_call', call),
      ...stats('core_start', start),
      ...stats('first_byte_after_ready', request),
      switch_to_first_byte_median_ms_by_protocol: perProtocol((kind) => kind.total),
      first_byte_after_ready_median_ms_by_protocol: perProtocol((kind) => kind.request),
      core_rss_mb: sumMb([core, ...carriers].map((c) => residentMb(processesOf(c.path, runtimeDir)))),
    };
  } finally {
    await tunnel.disconnect();
    await rm(runtimeDir, { recursive: true, force: true });
  }
}

function sumMb(values: (number | null)[]): number | null {
  return values.some((v) => v === null) ? null : round(values.reduce<number>((sum, v) => sum + (v as number), 0), 1);
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
