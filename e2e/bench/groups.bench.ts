/**
 * A server group's switch beside the main connection: the time from `tunnel.switchGroup(name,
 * next)` to the first byte of an answer through the group's new pick (a GET of a name under
 * ai.lab.test, which the routing sends through the group, on a fresh connection; its status line
 * is the first byte), and, during it, the main connection's longest gap: a download through the
 * main server, throttled by the lab so it lasts the whole switch, read chunk by chunk; the gap is
 * the longest time between two chunks from the first to the last. On Xray a switch is swapped
 * into the running core, so the main download should not notice; `--cores xray,v2ray` adds the
 * control, where a group switch restarts the core and the main download breaks (reported).
 *
 * Each switch trial is paired with a control trial that does everything but the switch (the same
 * download, the same request through the group after the same pause), so the gap a switch adds
 * is told from the throttle's own spacing and the group request's; and both record the longest
 * stall of this process's event loop, since the lab's relays and the download's reader run in it
 * (a stall there is a gap the bench makes, not the core).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { ProxyAgent, request } from 'undici';
import { type CoreRouting, detectCore, groupTag, isCoreName } from '../../app/core';
import { labCore } from '../../app/core/testing/cores';
import { Logger } from '../../app/log/logger';
import { TunnelController } from '../../app/tunnel/controller';
import { freePorts } from '../../app/tunnel/ports';
import { serversFromLinks } from '../../app/tunnel/testing/lab-servers';
import type { Server } from '../../shared/domain/server';
import { type InProcessLab, startLab } from '../lab/index';
import { type Benchmark, median, option, quantile, round } from './harness';

async function firstByte(proxy: string, url: string): Promise<number> {
  const agent = new ProxyAgent(proxy);
  const began = performance.now();
  try {
    const response = await request(url, { dispatcher: agent, signal: AbortSignal.timeout(10_000) });
    const at = performance.now();
    await response.body.dump();
    if (response.statusCode !== 204) throw new Error(`HTTP ${response.statusCode} through the group's new pick`);
    return at - began;
  } finally {
    await agent.destroy();
  }
}

/** A download through the main route, read as it comes: the times its chunks arrived, and whether it came whole. */
async function mainDownload(proxy: string, url: string, bytes: number): Promise<{ chunkAt: number[]; whole: boolean }> {
  const agent = new ProxyAgent(proxy);
  const chunkAt: number[] = [];
  let received = 0;
  try {
    const response = await request(url, { dispatcher: agent, signal: AbortSignal.timeout(30_000) });
    for await (const chunk of response.body) {
      chunkAt.push(performance.now());
      received += (chunk as Buffer).length;
    }
  } catch (error) {
    // A broken download is a figure too: reported as not whole.
    if (process.env.DEBUG_BENCH) console.error(`main download broke after ${received} bytes: ${String(error)}`);
  } finally {
    await agent.destroy();
  }
  return { chunkAt, whole: received === bytes };
}

/** The longest stall of this process's event loop while `work` runs, in ms. */
async function withLoopDelay<T>(work: () => Promise<T>): Promise<{ value: T; loopDelayMaxMs: number }> {
  const histogram = monitorEventLoopDelay({ resolution: 5 });
  histogram.enable();
  try {
    const value = await work();
    return { value, loopDelayMaxMs: histogram.max / 1e6 };
  } finally {
    histogram.disable();
  }
}

const longestGap = (times: number[]) => times.slice(1).reduce((gap, at, i) => Math.max(gap, at - times[i]!), 0);

const stats = (prefix: string, values: number[]) =>
  values.length === 0
    ? { [`${prefix}_trials`]: 0 }
    : {
        [`${prefix}_median_ms`]: round(median(values)),
        [`${prefix}_p95_ms`]: round(quantile(values, 0.95)),
        [`${prefix}_min_ms`]: round(Math.min(...values)),
        [`${prefix}_max_ms`]: round(Math.max(...values)),
      };

export const groupsBenchmark: Benchmark = {
  name: 'groups',
  description: "a group switch's time to first byte through its new pick, and the main connection's longest gap during it (lab)",
  async run(args) {
    const trials = option(args, 'trials', 20);
    const latencyMs = option(args, 'latency', 20);
    const downloadBytes = option(args, 'bytes', 3 * 1024 * 1024);
    const kbps = option(args, 'kbps', 16_000);
    const cores = option(args, 'cores', 'xray')
      .split(',')
      .map((c) => c.trim())
      .filter(Boolean);
    const lab = await startLab({ servers: 3, subscriptions: 1, seed: 9, latency: [latencyMs, latencyMs] });
    try {
      const servers = serversFromLinks(lab.info.servers.map((s) => s.shareLink));
      // The main server's relay caps its bandwidth, so the main download spans the switch.
      await lab.setFault(lab.info.servers[0]!.id, { fault: 'slow', bandwidthKbps: kbps, latencyMs });
      const perCore: Record<string, unknown> = {};
      for (const name of cores) perCore[name] = await trialsThrough(isCoreName(name) ? labCore(name) : name, servers, lab, { trials, downloadBytes });
      return { trials, lab_latency_each_way_ms: latencyMs, main_download_bytes: downloadBytes, main_download_cap_kbps: kbps, cores: perCore };
    } finally {
      await lab.stop();
    }
  },
};

async function trialsThrough(corePath: string, servers: Server[], lab: InProcessLab, o: { trials: number; downloadBytes: number }): Promise<Record<string, unknown>> {
  const runtimeDir = await mkdtemp(join(tmpdir(), 'steadfast-bench-groups-'));
  const [httpPort, socksPort] = (await freePorts(2)) as [number, number];
  const core = await detectCore(corePath);
  const routing: CoreRouting = {
    domainStrategy: 'AsIs',
    routes: [{ outbound: groupTag('AI'), domain: ['domain:ai.lab.test'] }],
    hosts: {},
    dns: { remote: lab.info.resolver, domestic: 'system', directDomains: [] },
  };
  const [main, a, b] = servers as [Server, Server, Server];
  const tunnel = new TunnelController({ core, runtimeDir, logger: new Logger({ level: 'error' }), httpPort, socksPort, routing, groups: [{ name: 'AI', pick: { server: a } }] });
  const proxy = `http://127.0.0.1:${httpPort}`;
  const groupUrl = new URL(lab.info.target);
  groupUrl.hostname = 'x.ai.lab.test';
  try {
    await tunnel.connect(main);
    await firstByte(proxy, groupUrl.toString());
    // The same download with no switch: how the lab's throttle itself spaces the chunks.
    const quiet: number[] = [];
    for (let i = 0; i < 3; i++) quiet.push(longestGap((await mainDownload(proxy, `${lab.info.bytes}/${o.downloadBytes}`, o.downloadBytes)).chunkAt));
    const toFirstByte: number[] = [];
    const swapCall: number[] = [];
    const gaps: number[] = [];
    const controlGaps: number[] = [];
    const loopDelay: number[] = [];
    const controlLoopDelay: number[] = [];
    const ways = new Set<string>();
    let broken = 0;
    const url = `${lab.info.bytes}/${o.downloadBytes}`;
    for (let i = 1; i <= o.trials; i++) {
      // The control: the same download and group request, no switch.
      const control = await withLoopDelay(async () => {
        const download = mainDownload(proxy, url, o.downloadBytes);
        await new Promise((r) => setTimeout(r, 400));
        await firstByte(proxy, groupUrl.toString());
        return download;
      });
      controlLoopDelay.push(control.loopDelayMaxMs);
      if (control.value.whole) controlGaps.push(longestGap(control.value.chunkAt));
      const trial = await withLoopDelay(async () => {
        const download = mainDownload(proxy, url, o.downloadBytes);
        // The download under way before the group moves.
        await new Promise((r) => setTimeout(r, 400));
        const began = performance.now();
        ways.add(await tunnel.switchGroup('AI', { server: i % 2 === 1 ? b : a }));
        const swapped = performance.now();
        const byte = await firstByte(proxy, groupUrl.toString());
        toFirstByte.push(swapped - began + byte);
        swapCall.push(swapped - began);
        return download;
      });
      loopDelay.push(trial.loopDelayMaxMs);
      if (!trial.value.whole) broken++;
      else gaps.push(longestGap(trial.value.chunkAt));
    }
    return {
      core: `${core.family} ${core.version}`,
      switch_way: [...ways],
      ...stats('group_switch_to_first_byte', toFirstByte),
      ...stats('group_switch_call', swapCall),
      ...stats('main_longest_gap', gaps),
      // Trial by trial, in order: a swap's first trials may differ from the rest (a conversion the core made once).
      group_switch_call_each_ms: swapCall.map((v) => round(v)),
      main_longest_gap_each_ms: gaps.map((v) => round(v)),
      ...stats('main_longest_gap_without_switch', quiet),
      ...stats('main_longest_gap_control', controlGaps),
      ...stats('event_loop_delay_max_during_switch', loopDelay),
      ...stats('event_loop_delay_max_control', controlLoopDelay),
      main_downloads_whole: o.trials - broken,
      main_downloads_broken: broken,
    };
  } finally {
    await tunnel.disconnect();
    await rm(runtimeDir, { recursive: true, force: true });
  }
}
