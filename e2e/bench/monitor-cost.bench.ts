/**
 * What the monitor's testing costs the user (issue 26): 200 lab servers, the real monitor and
 * prober, the connection in use all along, once with today's rule (transfer tests for every
 * server that answers, `transferTestEveryServer`) and once with the new one (the current server,
 * the next 5 of the queue, delay probes for the rest). A real shorter run, scaled: the monitor's
 * 5-minute interval runs as `--interval` ms (15 s), so `--cycles` intervals (12) stand for an
 * hour of use, and every figure per hour is scaled by 5 min / interval. Beside the monitor, the
 * current server's watch test of Auto (auto.md: at least every 60 s while in use, a result the
 * monitor just made counting) runs whenever the current server's latest transfer result is 60 s
 * old, scaled the same way; the queue is the servers by their latest delay, as Auto's orders them
 * when all are scored. Each rule runs for `--seconds` (240) of real time. `cycles_per_hour` says
 * whether the monitor kept its pace (12 at a 5-min interval): on a loaded machine a cycle of 200
 * servers takes longer than the shortened interval, more so under the old rule, whose transfers
 * hold the workers. `mb_per_hour_at_full_pace` therefore scales what the cycles brought (delay
 * probes, IP-info, the monitor's transfer tests) to 12 cycles an hour and adds the watch tests'
 * bytes per hour as measured (they follow the clock, not the cycles).
 *
 * Reported per rule: MB per hour by kind (delay, transfer, IP-info) as the monitor counted them,
 * the transfer tests made, and the lab relays' own count of the bytes through the servers over
 * the same time (what the counting is checked against; the relays see the proxy protocol's bytes,
 * without TLS here: the lab's servers are plain VMess on TCP).
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
import { TEST_KINDS, totalBytes } from '../../shared/domain/test-traffic';
import { monitorSettingsSchema } from '../../shared/settings';
import type { Lab } from '../lab';
import { startLab } from '../lab';
import { type Benchmark, option, round } from './harness';

const MB = 1e6;
const REAL_INTERVAL_MS = 5 * 60_000;
const WATCH_MS = 60_000;

export const monitorCostBenchmark: Benchmark = {
  name: 'monitor-cost',
  description: "bytes per hour of the monitor's tests at 200 lab servers in use, by kind: every server's transfer test beside the current server and Auto's next 5",
  async run(args) {
    const count = option(args, 'servers', 200);
    const intervalMs = option(args, 'interval', 15_000);
    const seconds = option(args, 'seconds', 240);
    const core = option(args, 'core', 'v2ray');
    const lab = await startLab({ servers: count, subscriptions: 1, latency: [20, 200] });
    const runtimeDir = await mkdtemp(join(tmpdir(), 'steadfast-monitor-cost-'));
    let prober: CoreProber | null = null;
    try {
      const servers = serversFromLinks(lab.info.servers.map((s) => s.shareLink));
      prober = new CoreProber({ core: await detectCore(labCore(core as 'v2ray' | 'xray')), runtimeDir, logger: new Logger() });
      prober.setServers(servers);
      await prober.settled();
      const run = (everyServer: boolean) => runPolicy(lab, prober!, servers, { everyServer, intervalMs, seconds });
      const before = await run(true);
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

async function runPolicy(lab: Lab, prober: CoreProber, servers: ReturnType<typeof serversFromLinks>, o: { everyServer: boolean; intervalMs: number; seconds: number }) {
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
  let monitor: Monitor | null = null;
  // The queue as Auto orders scored servers: lowest latest delay first, the unanswered last.
  const queue = (): ServerId[] => {
    const delay = (id: ServerId) => monitor?.status(id).delayMs ?? Number.MAX_SAFE_INTEGER;
    return servers.map((s) => s.id).sort((a, b) => delay(a) - delay(b));
  };
  const current = (): ServerId[] => queue().slice(0, 1);
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
  const t0 = performance.now();
  await monitor.start();
  // The watch tests' own bytes: the current server's transfer bytes across each (a test of the
  // same server running already is joined, so nothing is counted twice).
  let watchBytes = 0;
  const watchOf = async (id: ServerId) => {
    const before = monitor!.testTrafficOf(id).transfer;
    await monitor!.transferTest(id);
    const after = monitor!.testTrafficOf(id).transfer;
    watchBytes += after.up + after.down - before.up - before.down;
  };
  const watching = new Set<ServerId>();
  const watch = setInterval(() => {
    const id = current()[0];
    const last = id ? monitor!.transferResult(id) : null;
    if (!id || watching.has(id) || (last && Date.now() - last.at < WATCH_MS / scale)) return;
    watching.add(id);
    void watchOf(id).finally(() => watching.delete(id));
  }, 1000 / scale);
  await new Promise((resolve) => setTimeout(resolve, o.seconds * 1000));
  clearInterval(watch);
  const elapsedMs = performance.now() - t0;
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
    transfer_tests_per_hour: round(transfers / simulatedHours, 1),
    cycles_per_hour: round(cyclesPerHour, 1),
    watch_mb_per_hour: perHour(watchBytes),
    mb_per_hour_at_full_pace: round((byCycles / MB / simulatedHours) * (12 / Math.max(cyclesPerHour, 1e-9)) + watchBytes / MB / simulatedHours, 2),
    relay_mb_per_hour: perHour(relay),
    counted_over_relay: relay > 0 ? round(totalBytes(total) / relay, 3) : null,
    real_seconds: round(elapsedMs / 1000, 1),
  };
}
