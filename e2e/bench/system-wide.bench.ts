/**
 * System-wide mode beside proxy mode, in one run, in the namespaces of the system-wide test (root
 * only): the same lab server, the same site, the same client program in the user namespace.
 * - per-request time on fresh connections: direct (no tunnel), through the local HTTP proxy
 *   (proxy mode), captured by the firewall into the core (system-wide); the added latency is
 *   system-wide's median minus proxy mode's;
 * - one 100 MB download each way, and their ratio;
 * - a crash: kill -9 of the core (to traffic flowing again) and of the app (to every rule and
 *   route gone and a direct connection answering).
 * Measures, never asserts. `--requests N` (default 200), `--megabytes N` (default 100).
 */
import { join } from 'node:path';
import { pollUntil } from '../../app/testing/poll';
import { processesMentioning } from '../../app/tunnel/testing/processes';
import { ADDRESSES, captureTraces, namespacesAvailable } from '../system-wide/netns';
import { exited, startApp, startSystemWideWorld, type SystemWideWorld, TARGET_URL } from '../system-wide/world';
import { type Benchmark, median, option, quantile, round } from './harness';

interface Measured {
  latencies: number[];
  bytes: number;
  seconds: number;
}

async function measure(world: SystemWideWorld, mode: 'direct' | 'proxy', requests: number, megabytes: number): Promise<Measured> {
  const out = await world.inUser(
    [process.execPath, 'e2e/system-wide/measure.mjs', mode, TARGET_URL, String(requests), `${TARGET_URL}bytes/${megabytes * 1024 * 1024}`, '10809'],
    600_000,
  );
  return JSON.parse(out) as Measured;
}

const summary = (m: Measured) => ({
  request_median_ms: round(median(m.latencies), 3),
  request_p90_ms: round(quantile(m.latencies, 0.9), 3),
  download_mb_per_s: round(m.bytes / 1024 / 1024 / m.seconds, 1),
});

/** Milliseconds until the condition held (polled every 20 ms), or null when it never did. */
const msUntil = async (condition: () => Promise<boolean>, timeoutMs: number): Promise<number | null> => {
  const polled = await pollUntil(condition, timeoutMs, 20);
  return polled ? round(polled.elapsedMs, 0) : null;
};

const directAnswers = async (world: SystemWideWorld) => (await world.inUser(['curl', '-s', '-m', '1', TARGET_URL]).catch(() => '')) === ADDRESSES.user;
const anyAnswer = async (world: SystemWideWorld) => (await world.inUser(['curl', '-s', '-m', '1', TARGET_URL]).catch(() => '')) !== '';

export const systemWideBenchmark: Benchmark = {
  name: 'system-wide',
  description: 'system-wide mode beside proxy mode (root, namespaces): added latency, 100 MB throughput ratio, crash to network restored',
  async run(args) {
    if (!namespacesAvailable()) throw new Error('this benchmark needs root with nft and ip (it builds network namespaces)');
    const requests = option(args, 'requests', 200);
    const megabytes = option(args, 'megabytes', 100);
    const world = await startSystemWideWorld();
    try {
      const direct = await measure(world, 'direct', requests, megabytes);

      const proxyApp = startApp(world, join(world.dir, 'data-proxy'), ['--mode', 'proxy']);
      await proxyApp.ready;
      const proxy = await measure(world, 'proxy', requests, megabytes);
      proxyApp.child.kill('SIGTERM');
      await exited(proxyApp.child);

      const dataDir = join(world.dir, 'data-system-wide');
      const wideApp = startApp(world, dataDir, ['--mode', 'system-wide']);
      await wideApp.ready;
      const wide = await measure(world, 'direct', requests, megabytes);

      const [core] = processesMentioning(join(dataDir, 'runtime'));
      if (core === undefined) throw new Error('the tunnel core was not found');
      process.kill(core, 'SIGKILL');
      const coreKillToTrafficMs = await msUntil(() => anyAnswer(world), 10_000);
      await msUntil(async () => (await world.inUser(['curl', '-s', '-m', '1', TARGET_URL]).catch(() => '')) === ADDRESSES.exit, 10_000);

      wideApp.child.kill('SIGKILL');
      const appKillToRulesGoneMs = await msUntil(async () => (await captureTraces(world.topology.user)).length === 0, 10_000);
      const appKillToDirectMs = await msUntil(() => directAnswers(world), 10_000);

      const p = summary(proxy);
      const w = summary(wide);
      return {
        requests,
        download_megabytes: megabytes,
        direct: summary(direct),
        proxy_mode: p,
        system_wide: w,
        added_latency_vs_proxy_median_ms: round(w.request_median_ms - p.request_median_ms, 3),
        added_latency_vs_direct_median_ms: round(w.request_median_ms - summary(direct).request_median_ms, 3),
        throughput_ratio_system_wide_to_proxy: round(w.download_mb_per_s / p.download_mb_per_s, 3),
        core_kill_to_traffic_ms: coreKillToTrafficMs,
        app_kill_to_rules_gone_ms: appKillToRulesGoneMs,
        app_kill_to_direct_connection_ms: appKillToDirectMs,
      };
    } finally {
      await world.close();
    }
  },
};
