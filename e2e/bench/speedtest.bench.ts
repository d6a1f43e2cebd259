/**
 * The bulk speed test against known rates (issue 26): `--servers` lab servers (50), each behind a
 * relay whose `throttle` fault caps it at one of ten rates (100 KB/s to 2.4 MB/s, five servers a
 * rate), the real prober and the monitor's speed test, `--bytes` per server (1 MB: the ten rates'
 * downloads then take 0.4–10 s; the app's 10 MB would make one run 15 minutes), `--parallel` at a
 * time (2). Reported:
 * - the rank correlation (Spearman, ties averaged) of the measured speeds with the configured
 *   rates (goal ≥ 0.95), and each rate's median measured speed;
 * - the wall time against the bound: every server's bytes at its rate, added up, over K (the run
 *   cannot be faster than that with K downloads at once);
 * - the time from cancel to idle (every download stopped), over `--cancels` runs cancelled
 *   `--cancel-after` ms into them (goal ≤ 500 ms), and the relays' connections still open after;
 * - the bytes the test budget counted as speed tests beside the relays' own count, for the whole
 *   run and for the cancelled ones (whose downloads were cut short).
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
import type { SpeedTestResult } from '../../shared/domain/speed-test';
import { monitorSettingsSchema } from '../../shared/settings';
import { startLab } from '../lab';
import { type Benchmark, median, option, round } from './harness';

const RATES = [100_000, 150_000, 200_000, 300_000, 400_000, 600_000, 800_000, 1_200_000, 1_600_000, 2_400_000];

export const speedtestBenchmark: Benchmark = {
  name: 'speedtest',
  description: 'bulk speed test of 50 lab servers at ten known throttles: rank correlation with the rates, wall time against the bound, cancel to idle',
  async run(args) {
    const count = option(args, 'servers', 50);
    const bytes = option(args, 'bytes', 1_000_000);
    const parallel = option(args, 'parallel', 2);
    const cancels = option(args, 'cancels', 5);
    const cancelAfterMs = option(args, 'cancel-after', 1500);
    const core = option(args, 'core', 'v2ray');
    const lab = await startLab({ servers: count, subscriptions: 1, latency: [5, 20] });
    const runtimeDir = await mkdtemp(join(tmpdir(), 'steadfast-speedtest-'));
    let prober: CoreProber | null = null;
    let monitor: Monitor | null = null;
    try {
      const servers = serversFromLinks(lab.info.servers.map((s) => s.shareLink));
      const rateOf = new Map(servers.map((s, i) => [s.id, RATES[i % RATES.length] as number]));
      for (const [i, info] of lab.info.servers.entries()) await lab.setFault(info.id, { fault: 'throttle', bytesPerSecond: RATES[i % RATES.length] as number });
      prober = new CoreProber({ core: await detectCore(labCore(core as 'v2ray' | 'xray')), runtimeDir, logger: new Logger() });
      prober.setServers(servers);
      await prober.settled();
      const settings = monitorSettingsSchema.parse({ urls: [lab.info.target], idleTimeoutMs: 0 });
      monitor = new Monitor({ prober, clock: systemClock, logger: new Logger(), settings, cacheFile: null, servers: () => servers, selections: () => [], throughputUrl: (n) => `${lab.info.download}?bytes=${n}` });
      const results = new Map<string, SpeedTestResult>();
      monitor.onSpeedTestResult(({ serverId, result }) => results.set(serverId, result));
      const ids = servers.map((s) => s.id);

      // The whole run.
      const relayBefore = await lab.counters();
      const t0 = performance.now();
      monitor.startSpeedTest({ serverIds: ids, bytes, parallel });
      await monitor.speedTestIdle();
      const wallMs = performance.now() - t0;
      const relayAfter = await lab.counters();
      const relayDown = lab.info.servers.reduce((sum, s) => sum + relayAfter.servers[s.id]!.bytesDown - relayBefore.servers[s.id]!.bytesDown, 0);
      const counted = monitor.testTrafficTotal()['speed-test'];
      const measured = ids.filter((id) => results.get(id)?.bytesPerSecond != null);
      const boundMs = ids.reduce((sum, id) => sum + (bytes / (rateOf.get(id) as number)) * 1000, 0) / parallel;
      const byRate = RATES.map((rate) => {
        const speeds = ids.filter((id) => rateOf.get(id) === rate).map((id) => results.get(id)?.bytesPerSecond ?? null).filter((v): v is number => v !== null);
        return { configured_bytes_per_s: rate, measured_median_bytes_per_s: speeds.length ? Math.round(median(speeds)) : null, measured: speeds.length };
      });

      // Cancels: a run of every server, cancelled once it is well under way.
      const cancelMs: number[] = [];
      const openAfter: number[] = [];
      const openAfterSecond: number[] = [];
      const openNow = async () => {
        const counters = await lab.counters();
        return lab.info.servers.reduce((sum, s) => sum + counters.servers[s.id]!.active, 0);
      };
      const cancelRelayBefore = await lab.counters();
      const cancelCountedBefore = monitor.testTrafficTotal()['speed-test'].down;
      for (let i = 0; i < cancels; i++) {
        monitor.startSpeedTest({ serverIds: [...ids].reverse(), bytes: bytes * 4, parallel });
        await new Promise((resolve) => setTimeout(resolve, cancelAfterMs));
        const asked = performance.now();
        await monitor.cancelSpeedTest();
        cancelMs.push(performance.now() - asked);
        // What the relays still hold open 100 ms and 1 s later: the core between the prober and
        // the relay closes its own upstream connection after ours, on its own time.
        await new Promise((resolve) => setTimeout(resolve, 100));
        openAfter.push(await openNow());
        await new Promise((resolve) => setTimeout(resolve, 900));
        openAfterSecond.push(await openNow());
      }
      const cancelRelayAfter = await lab.counters();
      const cancelRelayDown = lab.info.servers.reduce((sum, s) => sum + cancelRelayAfter.servers[s.id]!.bytesDown - cancelRelayBefore.servers[s.id]!.bytesDown, 0);
      const cancelCounted = monitor.testTrafficTotal()['speed-test'].down - cancelCountedBefore;

      return {
        servers: count,
        core,
        bytes_per_server: bytes,
        parallel,
        rates_bytes_per_s: RATES,
        measured: measured.length,
        failed: ids.length - measured.length,
        failures: ids.filter((id) => results.get(id)?.bytesPerSecond == null).map((id) => ({ configured_bytes_per_s: rateOf.get(id), error: results.get(id)?.error ?? 'no result' })),
        spearman: round(spearman(measured.map((id) => rateOf.get(id) as number), measured.map((id) => results.get(id)!.bytesPerSecond as number)), 4),
        goal_spearman: 0.95,
        by_rate: byRate,
        wall_ms: Math.round(wallMs),
        bound_ms: Math.round(boundMs),
        wall_over_bound: round(wallMs / boundMs, 3),
        cancel_to_idle_ms: { median: Math.round(median(cancelMs)), max: Math.round(Math.max(...cancelMs)), runs: cancelMs.map((ms) => Math.round(ms)) },
        goal_cancel_to_idle_ms: 500,
        relay_connections_open_100ms_after_idle: openAfter,
        relay_connections_open_1s_after_idle: openAfterSecond,
        budget_counted_down_bytes: counted.down,
        relay_down_bytes: relayDown,
        counted_over_relay: relayDown > 0 ? round(counted.down / relayDown, 3) : null,
        // The cancelled runs' downloads were cut short: what came before the cancel is counted too.
        cancelled_runs_counted_down_bytes: cancelCounted,
        cancelled_runs_relay_down_bytes: cancelRelayDown,
        cancelled_runs_counted_over_relay: cancelRelayDown > 0 ? round(cancelCounted / cancelRelayDown, 3) : null,
      };
    } finally {
      await monitor?.stop();
      await prober?.close();
      await lab.stop();
      await rm(runtimeDir, { recursive: true, force: true });
    }
  },
};

/** Spearman's rank correlation: Pearson's over the ranks, tied values sharing their mean rank. */
export function spearman(xs: number[], ys: number[]): number {
  const rx = ranks(xs);
  const ry = ranks(ys);
  const mean = (v: number[]) => v.reduce((a, b) => a + b, 0) / v.length;
  const mx = mean(rx);
  const my = mean(ry);
  let num = 0;
  let dx = 0;
  let dy = 0;
  for (let i = 0; i < rx.length; i++) {
    const a = (rx[i] as number) - mx;
    const b = (ry[i] as number) - my;
    num += a * b;
    dx += a * a;
    dy += b * b;
  }
  return dx === 0 || dy === 0 ? Number.NaN : num / Math.sqrt(dx * dy);
}

function ranks(values: number[]): number[] {
  const order = values.map((value, index) => ({ value, index })).sort((a, b) => a.value - b.value);
  const out = new Array<number>(values.length);
  for (let i = 0; i < order.length; ) {
    let j = i;
    while (j + 1 < order.length && (order[j + 1] as { value: number }).value === (order[i] as { value: number }).value) j++;
    for (let k = i; k <= j; k++) out[(order[k] as { index: number }).index] = (i + j) / 2 + 1;
    i = j + 1;
  }
  return out;
}
