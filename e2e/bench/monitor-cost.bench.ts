/**
 * What the monitor's testing costs the user (issue 26): 200 lab servers, the real monitor and
 * prober, the connection in use all along, once with today's rule (transfer tests for every
 * server that answers, `transferTestEveryServer`) and once with the new one (the current server,
 * the next 5 of the queue, delay probes for the rest). A real shorter run, scaled: the monitor's
 * 5-minute interval runs as `--interval` ms (15 s), so `--cycles` intervals (12) stand for an
 * hour of use, and every figure per hour is scaled by 5 min / interval. Each rule runs for
 * `--seconds` (240) of real time; `--rule focused` runs the new rule alone.
 *
 * Beside the monitor runs Auto's watch of the current server (app/auto/policy/watch.ts, the real
 * rules on a clock scaled the same way): its transfer test as the connection starts, then at least
 * every 60 s while traffic passes, a result the monitor made counting, unless the user's traffic
 * proved within that minute that the server does not freeze (./flow-proof.ts). What the user does
 * decides that, so `--use` names the traffic fed to it, as the core's 250 ms counters would show
 * it: `chat` (a few kilobytes every 10 s: in use, and never a proof; the default and the worst
 * case) or `stream` (a 2.5 Mbit/s video in 2 s segments: a proof all along). The current server
 * is the fastest once the first cycle answered and stays (Auto never leaves a server that
 * answers); the queue puts servers whose transfer test passed first, then by their latest delay,
 * as Auto's queue orders scored servers.
 *
 * `cycles_per_hour` says whether the monitor kept its pace (12 at a 5-min interval): on a loaded
 * machine a cycle of 200 servers takes longer than the shortened interval, more so under the old
 * rule, whose transfers hold the workers. `mb_per_hour_at_full_pace` therefore scales what the
 * cycles brought (delay probes, IP-info, the monitor's transfer tests) to 12 cycles an hour and
 * adds the watch tests' bytes per hour as measured (they follow the clock, not the cycles).
 *
 * Reported per rule: MB per hour by kind (delay, transfer, IP-info) as the monitor counted them,
 * the delay probes and transfer tests made, the watch's tests, and the lab relays' own count of
 * the bytes through the servers over the same time (what the counting is checked against; the
 * relays see the proxy protocol's bytes, TLS included for the lab's TLS servers, where the
 * counting can only estimate the handshakes: app/monitor/policy/traffic-cost.ts).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { systemClock } from '../../app/clock';
import { detectCore } from '../../app/core';
import { labCore } from '../../app/core/testing/cores';
import { Logger } from '../../app/log/logger';
import { Monitor } from '../../app/monitor/monitor';
import { CoreProber } from '../../app/tunnel/prober';
import { serversFromLinks } from '../../app/tunnel/testing/lab-servers';
import type { ServerId } from '../../shared/domain/server';
import type { TrafficSample } from '../../shared/domain/connection';
import { TEST_KINDS, totalBytes } from '../../shared/domain/test-traffic';
import { QUIET_TRACKER, observeSample, type TrafficTracker } from '../../app/auto/policy/traffic';
import { watchDue, watchEnded, watchOf, watchResult, watchSample, type WatchState } from '../../app/auto/policy/watch';
import type { ServerProber } from '../../app/monitor/ports';
import { monitorSettingsSchema } from '../../shared/settings';
import type { Lab } from '../lab';
import { startLab } from '../lab';
import { type Benchmark, option, round } from './harness';

const MB = 1e6;
const KB = 1024;
const REAL_INTERVAL_MS = 5 * 60_000;
const SAMPLE_MS = 250;

/** What the user's traffic through the current server looks like, per 250 ms interval of (scaled) time. */
const USES = {
  // A chat: a message each 10 s, a few kilobytes. In use all along, never a proof.
  chat: (ms: number): [up: number, down: number] => (ms % 10_000 < SAMPLE_MS ? [600, 3 * KB] : [0, 0]),
  // A 2.5 Mbit/s video in 2 s segments (625 KB each, a 500 B request): a proof all along.
  stream: (ms: number): [up: number, down: number] => [ms % 2000 < SAMPLE_MS ? 500 : 0, (2_500_000 / 8 / 1000) * SAMPLE_MS],
} as const;
type Use = keyof typeof USES;

export const monitorCostBenchmark: Benchmark = {
  name: 'monitor-cost',
  description: "bytes per hour of the monitor's tests at 200 lab servers in use, by kind: every server's transfer test beside the current server and Auto's next 5",
  async run(args) {
    const count = option(args, 'servers', 200);
    const intervalMs = option(args, 'interval', 15_000);
    const seconds = option(args, 'seconds', 240);
    const core = option(args, 'core', 'v2ray');
    const use = option(args, 'use', 'chat') as Use;
    if (!(use in USES)) throw new Error(`--use is one of ${Object.keys(USES).join(', ')}`);
    const rule = option(args, 'rule', 'both');
    const lab = await startLab({ servers: count, subscriptions: 1, latency: [20, 200] });
    const runtimeDir = await mkdtemp(join(tmpdir(), 'steadfast-monitor-cost-'));
    let prober: CoreProber | null = null;
    try {
      const servers = serversFromLinks(lab.info.servers.map((s) => s.shareLink));
      prober = new CoreProber({ core: await detectCore(labCore(core as 'v2ray' | 'xray')), runtimeDir, logger: new Logger() });
      prober.setServers(servers);
      await prober.settled();
      const run = (everyServer: boolean) => runPolicy(lab, prober!, servers, { everyServer, intervalMs, seconds, use });
      const before = rule === 'focused' ? null : await run(true);
      const after = await run(false);
      return {
        servers: count,
        core,
        interval_real_ms: intervalMs,
        interval_stands_for_ms: REAL_INTERVAL_MS,
        scale: REAL_INTERVAL_MS / intervalMs,
        simulated_minutes_per_rule: round((seconds * 1000 * (REAL_INTERVAL_MS / intervalMs)) / 60_000),
        transfer_test_bytes: 64 * 1024,
        candidates: 5,
        use,
        every_server: before,
        focused: after,
        goal_mb_per_hour: 10,
      };
    } finally {
      await prober?.close();
      await lab.stop();
      await rm(runtimeDir, { recursive: true, force: true });
    }
  },
};

/** The prober with its calls counted by kind (the delay probes a rule makes, beside their bytes). */
function countingProber(inner: CoreProber): { prober: ServerProber; counts: { probes: number; downloads: number; fetches: number } } {
  const counts = { probes: 0, downloads: 0, fetches: 0 };
  const prober: ServerProber = {
    probe: (id, request) => (counts.probes++, inner.probe(id, request)),
    download: (id, request) => (counts.downloads++, inner.download(id, request)),
    fetchThrough: (id, request) => (counts.fetches++, inner.fetchThrough(id, request)),
    tcpPing: (server, timeoutMs, signal) => inner.tcpPing(server, timeoutMs, signal),
    readiness: (id) => inner.readiness(id),
  };
  return { prober, counts };
}

async function runPolicy(lab: Lab, inner: CoreProber, servers: ReturnType<typeof serversFromLinks>, o: { everyServer: boolean; intervalMs: number; seconds: number; use: Use }) {
  const scale = REAL_INTERVAL_MS / o.intervalMs;
  const settings = monitorSettingsSchema.parse({
    urls: [lab.info.target],
    ipInfoUrl: lab.info.ipinfo,
    ipInfoUrls: lab.info.ipinfoUrls,
    transferTestUrl: `${lab.info.bytes}/{bytes}`,
    transferTestBytes: 64 * 1024,
    transferTestEveryServer: o.everyServer,
    intervalMs: o.intervalMs,
    urlTestTimeoutMs: 3000,
    idleTimeoutMs: 0,
  });
  const { prober, counts } = countingProber(inner);
  let monitor: Monitor | null = null;
  // Auto stays on the server it has while it answers: the fastest once the first cycle answered.
  let currentId: ServerId | null = null;
  const current = (): ServerId[] => {
    if (currentId === null && monitor) {
      const answered = servers.map((s) => s.id).filter((id) => monitor!.status(id).delayMs !== null);
      if (answered.length > 0) currentId = answered.sort((a, b) => monitor!.status(a).delayMs! - monitor!.status(b).delayMs!)[0]!;
    }
    return currentId === null ? [] : [currentId];
  };
  // The queue as Auto orders scored servers: a passed transfer test first, then the lowest latest delay, the unanswered last.
  const queue = (): ServerId[] => {
    const delay = (id: ServerId) => monitor?.status(id).delayMs ?? Number.MAX_SAFE_INTEGER;
    const untested = (id: ServerId) => (monitor?.transferResult(id)?.verdict === 'ok' ? 0 : 1);
    const head = current();
    return [...head, ...servers.map((s) => s.id).filter((id) => !head.includes(id)).sort((a, b) => untested(a) - untested(b) || delay(a) - delay(b))];
  };
  monitor = new Monitor({ prober, clock: systemClock, logger: new Logger(), settings, cacheFile: null, servers: () => servers, selections: current, queue });
  let started = 0;
  let running = false;
  monitor.onProgress((p) => {
    if (p.running && !running) started++;
    running = p.running;
  });
  let transfers = 0;
  monitor.onTransfer(() => transfers++);
  const countersBefore = await lab.counters();
  const t0 = Date.now();
  // Auto's time: the run's real time scaled as the monitor's interval is.
  const scaled = (at: number) => t0 + (at - t0) * scale;
  await monitor.start();

  // The watch, on the scaled clock: the user's samples, the monitor's results, its own tests.
  let watchBytes = 0;
  let watchTests = 0;
  let watch: WatchState = watchOf(null, scaled(Date.now()));
  let traffic: TrafficTracker = QUIET_TRACKER;
  let fedUntil = scaled(Date.now());
  const tick = () => {
    const id = current()[0] ?? null;
    const now = scaled(Date.now());
    if (id !== watch.serverId) watch = watchOf(id, now);
    for (; fedUntil + SAMPLE_MS <= now; fedUntil += SAMPLE_MS) {
      const [upBytes, downBytes] = USES[o.use](fedUntil + SAMPLE_MS - t0);
      const sample: TrafficSample = { at: fedUntil + SAMPLE_MS, intervalMs: SAMPLE_MS, upBytes, downBytes };
      traffic = observeSample(traffic, sample, 5000);
      watch = watchSample(watch, sample);
    }
    if (id === null) return;
    const last = monitor!.transferResult(id);
    if (last && !last.fromCache) watch = watchResult(watch, id, scaled(last.at)).watch;
    const reason = watchDue(watch, traffic, now);
    if (!reason) return;
    watch = { ...watch, runningSince: now };
    watchTests++;
    const before = monitor!.testTrafficOf(id).transfer;
    void monitor!.transferTest(id).finally(() => {
      const after = monitor!.testTrafficOf(id).transfer;
      watchBytes += after.up + after.down - before.up - before.down;
      const result = monitor!.transferResult(id);
      if (result && !result.fromCache) watch = watchResult(watch, id, scaled(result.at)).watch;
      if (watch.serverId === id) watch = watchEnded(watch, scaled(Date.now()));
    });
  };
  const ticker = setInterval(tick, Math.max(5, SAMPLE_MS / scale));
  await new Promise((resolve) => setTimeout(resolve, o.seconds * 1000));
  clearInterval(ticker);
  const elapsedMs = Date.now() - t0;
  const total = monitor.testTrafficTotal();
  await monitor.stop();
  const countersAfter = await lab.counters();
  const relay = lab.info.servers.reduce(
    (sum, s) => sum + (countersAfter.servers[s.id]!.bytesDown - countersBefore.servers[s.id]!.bytesDown) + (countersAfter.servers[s.id]!.bytesUp - countersBefore.servers[s.id]!.bytesUp),
    0,
  );
  const simulatedHours = (elapsedMs * scale) / 3_600_000;
  const perHour = (bytes: number) => round(bytes / MB / simulatedHours, 2);
  const cyclesPerHour = started / simulatedHours;
  const byCycles = totalBytes(total) - watchBytes;
  return {
    mb_per_hour: perHour(totalBytes(total)),
    mb_per_hour_by_kind: Object.fromEntries(TEST_KINDS.map((kind) => [kind, perHour(total[kind].up + total[kind].down)])),
    delay_probes_per_hour: round(counts.probes / simulatedHours, 1),
    transfer_tests_per_hour: round(transfers / simulatedHours, 1),
    cycles_per_hour: round(cyclesPerHour, 1),
    watch_tests_per_hour: round(watchTests / simulatedHours, 1),
    watch_mb_per_hour: perHour(watchBytes),
    mb_per_hour_at_full_pace: round((byCycles / MB / simulatedHours) * (12 / Math.max(cyclesPerHour, 1e-9)) + watchBytes / MB / simulatedHours, 2),
    relay_mb_per_hour: perHour(relay),
    counted_over_relay: relay > 0 ? round(totalBytes(total) / relay, 3) : null,
    real_seconds: round(elapsedMs / 1000, 1),
  };
}
