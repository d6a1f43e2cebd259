/**
 * System-wide mode beside proxy mode, both Linux captures side by side in one run, in the
 * namespaces of the system-wide tests (root only): the same lab server, the same site, the same
 * client program in the user namespace, the same routing file for every run of the app.
 * - per-request time on fresh connections: direct (no tunnel), through the local HTTP proxy
 *   (proxy mode), captured into the core by nftables TPROXY and by sing-box's TUN; the added
 *   latency is a capture's median minus proxy mode's;
 * - one 100 MB download each way, and the ratio of each capture's rate to proxy mode's;
 * - crashes, each to the network working again: kill -9 of the core (traffic flowing again),
 *   of sing-box (TUN: its rules gone and a direct connection answering), of the app (every rule,
 *   route and device gone and a direct connection answering).
 * Measures, never asserts. `--requests N` (default 200), `--megabytes N` (default 100),
 * `--link-mbit N` (default none): the user's line capped at N Mbit/s each way (capLink). Without
 * a cap the downloads run as fast as this machine's CPUs move bytes, so the ratio says what each
 * capture costs per byte; with one, what a user on such a line gets of it.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { pollUntil } from '../../app/testing/poll';
import { processesMentioning } from '../../app/tunnel/testing/processes';
import { LINUX_TUN } from '../../app/system-wide/tun/policy/sing-box-tun';
import { ADDRESSES, capLink, captureTraces, namespacesAvailable, tunTraces } from '../system-wide/netns';
import { exited, startApp, startSystemWideWorld, type SystemWideWorld, TARGET_URL } from '../system-wide/world';
import { type Benchmark, median, option, quantile, round } from './harness';

interface Measured {
  latencies: number[];
  bytes: number;
  seconds: number;
}

type Capture = 'tproxy' | 'tun';

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

const answer = (world: SystemWideWorld) => world.inUser(['curl', '-s', '-m', '1', TARGET_URL]).catch(() => '');
const directAnswers = async (world: SystemWideWorld) => (await answer(world)) === ADDRESSES.user;
const anyAnswer = async (world: SystemWideWorld) => (await answer(world)) !== '';
const throughServer = async (world: SystemWideWorld) => (await answer(world)) === ADDRESSES.exit;

/** What either capture leaves in the user namespace: nftables/policy routing, or sing-box's device and rules. */
async function traces(world: SystemWideWorld): Promise<string[]> {
  const tun = { device: LINUX_TUN.device, table: LINUX_TUN.table, priorities: Array.from({ length: LINUX_TUN.ruleSpan }, (_, i) => LINUX_TUN.ruleIndex + i) };
  return [...(await captureTraces(world.topology.user)), ...(await tunTraces(world.topology.user, tun))];
}

const corePid = (runtime: string) => processesMentioning(join(runtime, 'tunnel.json'))[0];

async function captured(world: SystemWideWorld, capture: Capture, routing: string, requests: number, megabytes: number, proxy: ReturnType<typeof summary>) {
  const dataDir = join(world.dir, `data-${capture}`);
  const runtime = join(dataDir, 'runtime');
  const extra = ['--mode', 'system-wide', '--capture', capture, '--routing', routing];
  let app = startApp(world, dataDir, extra);
  await app.ready;
  const wide = summary(await measure(world, 'direct', requests, megabytes));

  const core = corePid(runtime);
  if (core === undefined) throw new Error(`the tunnel core was not found (${capture})`);
  process.kill(core, 'SIGKILL');
  const coreKillToTrafficMs = await msUntil(() => anyAnswer(world), 10_000);
  const coreKillToServerAgainMs = await msUntil(() => throughServer(world), 15_000);

  let singBoxKillToNetworkMs: number | null = null;
  if (capture === 'tun') {
    const engine = Number((await readFile(join(runtime, 'tun-engine.pid'), 'utf8')).trim());
    process.kill(engine, 'SIGKILL');
    singBoxKillToNetworkMs = await msUntil(async () => (await traces(world)).length === 0 && (await directAnswers(world)), 10_000);
    // The TUN is not started again without asking: connect anew for the app's own crash.
    app.child.kill('SIGTERM');
    await exited(app.child);
    app = startApp(world, dataDir, extra);
    await app.ready;
  }

  app.child.kill('SIGKILL');
  const appKillToRulesGoneMs = await msUntil(async () => (await traces(world)).length === 0, 10_000);
  const appKillToDirectMs = await msUntil(() => directAnswers(world), 10_000);
  await exited(app.child);
  return {
    ...wide,
    added_latency_vs_proxy_median_ms: round(wide.request_median_ms - proxy.request_median_ms, 3),
    throughput_ratio_to_proxy: round(wide.download_mb_per_s / proxy.download_mb_per_s, 3),
    core_kill_to_traffic_ms: coreKillToTrafficMs,
    core_kill_to_server_again_ms: coreKillToServerAgainMs,
    ...(capture === 'tun' ? { sing_box_kill_to_network_ms: singBoxKillToNetworkMs } : {}),
    app_kill_to_rules_gone_ms: appKillToRulesGoneMs,
    app_kill_to_direct_connection_ms: appKillToDirectMs,
  };
}

export const systemWideBenchmark: Benchmark = {
  name: 'system-wide',
  description: 'both Linux system-wide captures (nftables TPROXY, sing-box TUN) beside proxy mode (root, namespaces): added latency, 100 MB throughput ratio, crash to network restored',
  async run(args) {
    if (!namespacesAvailable()) throw new Error('this benchmark needs root with nft and ip (it builds network namespaces)');
    const requests = option(args, 'requests', 200);
    const megabytes = option(args, 'megabytes', 100);
    const linkMbit = option(args, 'link-mbit', 0);
    const world = await startSystemWideWorld();
    try {
      if (linkMbit > 0) await capLink(world.topology, linkMbit);
      // Every run of the app on the same routing: the LAN direct, names asked of the world's resolver.
      await mkdir(join(world.dir, 'bench'), { recursive: true });
      const routing = join(world.dir, 'bench', 'routing.json');
      await writeFile(routing, JSON.stringify({ routing: { bypassLan: true }, dns: { remote: ADDRESSES.dns } }));
      const direct = summary(await measure(world, 'direct', requests, megabytes));

      const proxyApp = startApp(world, join(world.dir, 'data-proxy'), ['--mode', 'proxy', '--routing', routing]);
      await proxyApp.ready;
      const proxy = summary(await measure(world, 'proxy', requests, megabytes));
      proxyApp.child.kill('SIGTERM');
      await exited(proxyApp.child);

      const captures: Record<Capture, Awaited<ReturnType<typeof captured>>> = {
        tproxy: await captured(world, 'tproxy', routing, requests, megabytes, proxy),
        tun: await captured(world, 'tun', routing, requests, megabytes, proxy),
      };
      return {
        requests,
        download_megabytes: megabytes,
        link_cap_mbit: linkMbit > 0 ? linkMbit : null,
        direct,
        proxy_mode: proxy,
        system_wide: captures,
      };
    } finally {
      await world.close();
    }
  },
};
