/**
 * The transfer test against servers that answer pings but freeze traffic (the lab's `freeze`
 * fault at 16 KB), with the real monitor and prober over the lab:
 * - time from setting the fault to the `freezes` verdict (monitor interval shortened), per trial;
 * - false verdicts on healthy servers over N cycles (anything but `ok`; goal 0);
 * - what the test costs: extra bytes and requests per server per interval, from the lab's relay
 *   counters over the same number of cycles with the transfer test off, then on;
 * - Auto against it (issue 29): from a fresh data folder, 6 servers of which 5 freeze, the healthy
 *   one last, Auto on and connected, a 40 KB download each second: time from connecting to Auto's
 *   tunnel on the healthy server (median of `--auto-trials`, 5), the downloads that completed from
 *   then on (20 s each trial), and the switches to a frozen server (goal 0).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { systemClock } from '../../app/clock';
import { detectCore } from '../../app/core';
import { Logger, memoryLogger } from '../../app/log/logger';
import { testMonitor } from '../../app/monitor/testing/test-monitor';
import { pollUntil } from '../../app/testing/poll';
import { CoreProber } from '../../app/tunnel/prober';
import { serversFromLinks } from '../../app/tunnel/testing/lab-servers';
import type { Server } from '../../shared/domain/server';
import { monitorSettingsSchema } from '../../shared/settings';
import { startLab } from '../lab';
import { freezeTrial } from '../reliability/freeze-world';
import { type Benchmark, median, option, round } from './harness';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export const freezeBenchmark: Benchmark = {
  name: 'freeze',
  description: 'transfer test vs the 16 KB freeze: fault-to-verdict time, false verdicts on healthy servers over N cycles, extra bytes and requests per server per interval',
  async run(args) {
    const count = option(args, 'servers', 8);
    const cycles = option(args, 'cycles', 20);
    const trials = option(args, 'trials', 5);
    const intervalMs = option(args, 'interval', 3000);
    const bytes = option(args, 'bytes', 64 * 1024);
    const autoTrials = option(args, 'auto-trials', 5);
    const auto = await autoOnHealthy(autoTrials);
    const lab = await startLab({ servers: count, subscriptions: 1, latency: [20, 150] });
    const runtimeDir = await mkdtemp(join(tmpdir(), 'steadfast-freeze-bench-'));
    let prober: CoreProber | null = null;
    try {
      const servers = serversFromLinks(lab.info.servers.map((s) => s.shareLink));
      prober = new CoreProber({ core: await detectCore('/usr/bin/v2ray'), runtimeDir, logger: new Logger() });
      prober.setServers(servers);
      await prober.settled();
      const newMonitor = (transferTestBytes: number) => {
        const log = memoryLogger('info');
        const settings = monitorSettingsSchema.parse({
          urls: [lab.info.target],
          transferTestUrl: `${lab.info.bytes}/{bytes}`,
          transferTestBytes,
          intervalMs,
          urlTestTimeoutMs: 3000,
          idleTimeoutMs: 0,
          // Every server is the current one or one of Auto's next candidates: the servers whose freeze verdict counts.
          transferTestCandidates: Math.max(0, count - 1),
        });
        const queue = servers.map((s) => s.id);
        const monitor = testMonitor({
          prober: prober!,
          clock: systemClock,
          logger: log.logger,
          settings,
          cacheFile: null,
          servers: () => servers,
          selections: () => queue.slice(0, 1),
          queue: () => queue,
          ipInfo: false,
        });
        const cyclesDone = () => log.records.filter((r) => r.tag === 'MONITORING' && /^cycle \d+ \(/.test(r.message)).length;
        const transfers = () => log.records.filter((r) => r.tag === 'MONITORING' && r.message.startsWith('transfer test of'));
        return { monitor, cyclesDone, transfers };
      };

      // The cost: the same number of cycles without, then with, the transfer test.
      const cost = async (transferTestBytes: number) => {
        const run = newMonitor(transferTestBytes);
        const before = await lab.counters();
        await run.monitor.start();
        // The (cycles + 1)-th cycle starting means `cycles` whole intervals have passed.
        await pollUntil(() => run.cyclesDone() > cycles, (cycles + 3) * intervalMs + 30_000, 20);
        const after = await lab.counters();
        await run.monitor.stop();
        const sum = (key: 'connections' | 'bytesDown' | 'bytesUp') =>
          lab.info.servers.reduce((total, s) => total + (after.servers[s.id]![key] - before.servers[s.id]![key]), 0);
        return { run, connections: sum('connections'), bytesDown: sum('bytesDown'), bytesUp: sum('bytesUp') };
      };
      const off = await cost(0);
      const on = await cost(bytes);
      const verdicts = on.run.transfers().map((r) => r.message.replace(/^transfer test of .*?: (\w+).*$/, '$1'));
      const falseVerdicts = verdicts.filter((v) => v !== 'ok');
      const perServerInterval = (n: number) => n / (count * cycles);

      // Fault to verdict: the monitor runs; a server is frozen at 16 KB at a random moment of its
      // interval; the time until its transfer test says so.
      const detect = newMonitor(bytes);
      await detect.monitor.start();
      await pollUntil(() => detect.monitor.snapshot().every((s) => s.transfer?.verdict === 'ok'), 30_000, 20);
      const times: number[] = [];
      const missed: string[] = [];
      for (let i = 0; i < trials; i++) {
        const target: Server = servers[i % servers.length]!;
        const labId = lab.info.servers[i % servers.length]!.id;
        await sleep(Math.round(Math.random() * intervalMs));
        const t0 = performance.now();
        await lab.setFault(labId, { fault: 'freeze', afterBytes: 16 * 1024 });
        const seen = await pollUntil(() => detect.monitor.status(target.id).transfer?.verdict === 'freezes', 4 * intervalMs + 20_000, 20);
        if (seen) times.push(performance.now() - t0);
        else missed.push(target.id);
        await lab.setFault(labId, { fault: 'none' });
        await pollUntil(() => detect.monitor.status(target.id).transfer?.verdict === 'ok', 4 * intervalMs + 20_000, 20);
      }
      await detect.monitor.stop();

      return {
        servers: count,
        interval_ms: intervalMs,
        transfer_test_bytes: bytes,
        prober: 'CoreProber (app/tunnel/prober.ts), v2ray 4.34; lab relay freeze at 16 KB',
        fault_to_verdict_median_ms: times.length ? round(median(times)) : null,
        fault_to_verdict_max_ms: times.length ? round(Math.max(...times)) : null,
        fault_to_verdict_ms: times.map((t) => round(t)),
        fault_missed: missed.length,
        healthy_cycles: cycles,
        healthy_transfer_tests: verdicts.length,
        false_verdicts: falseVerdicts.length,
        extra_requests_per_server_per_interval: round(perServerInterval(on.connections - off.connections), 3),
        extra_bytes_down_per_server_per_interval: Math.round(perServerInterval(on.bytesDown - off.bytesDown)),
        extra_bytes_up_per_server_per_interval: Math.round(perServerInterval(on.bytesUp - off.bytesUp)),
        connections_per_server_per_interval_without: round(perServerInterval(off.connections), 3),
        connections_per_server_per_interval_with: round(perServerInterval(on.connections), 3),
        ...auto,
      };
    } finally {
      await prober?.close();
      await lab.stop();
      await rm(runtimeDir, { recursive: true, force: true });
    }
  },
};

/** Auto in the freezing world, fresh each trial (its own lab, engine and data folder). */
async function autoOnHealthy(trials: number) {
  const times: number[] = [];
  let missed = 0;
  let ok = 0;
  let total = 0;
  let switchesToFrozen = 0;
  let switches = 0;
  for (let i = 0; i < trials; i++) {
    const trial = await freezeTrial({ healthyIndex: 5, deadlineMs: 60_000, afterMs: 20_000 });
    if (trial.onHealthyMs === null) missed++;
    else times.push(trial.onHealthyMs);
    ok += trial.after.ok;
    total += trial.after.total;
    switches += trial.switches.length;
    switchesToFrozen += trial.switches.filter((s) => trial.frozen.includes(s.to)).length;
  }
  return {
    auto_world: '6 servers in one subscription, the first 5 frozen at 16 KB, fresh data folder, a 40 KB download each second, 20 s counted after Auto is on the healthy one',
    auto_trials: trials,
    auto_on_healthy_ms: times.length ? round(median(times)) : null,
    auto_on_healthy_max_ms: times.length ? round(Math.max(...times)) : null,
    auto_on_healthy_trials_ms: times.map((t) => round(t)),
    auto_on_healthy_missed: missed,
    downloads_ok_after_pct: total ? round((100 * ok) / total, 1) : null,
    downloads_after: total,
    switches_total: switches,
    switches_to_frozen: switchesToFrozen,
  };
}
