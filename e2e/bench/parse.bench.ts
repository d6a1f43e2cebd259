/**
 * `npm run bench -- parse [--links 10000] [--runs 7]`: how fast a subscription parses. The body
 * is what panels serve: base64 (wrapped at 76 columns, CRLF) of mixed share links — vmess JSON,
 * vless REALITY and WebSocket, trojan gRPC, ss (classic and 2022), hysteria2, tuic — with emoji,
 * Persian and Russian names and some IPv6 hosts. Two warm-up runs, then `--runs` timed runs.
 * Also times assigning stable ids to the parsed list (what an update does next); the goal
 * (≥ 100,000 links/s) counts both, as a user waits for both.
 */
import { loadavg } from 'node:os';
import { assignIds } from '../../app/subscriptions/identity';
import { parseSubscription } from '../../app/subscriptions/parse';
import { sampleSubscriptionBody } from '../../app/subscriptions/testing/sample-links';
import { type Benchmark, median, option, quantile, round } from './harness';

export const parseBenchmark: Benchmark = {
  name: 'parse',
  description: 'links per second parsing a 10,000-link base64 subscription of mixed schemes',
  async run(args) {
    const links = option(args, 'links', 10_000);
    const runs = Math.max(1, option(args, 'runs', 7));
    const body = sampleSubscriptionBody(links);

    for (let i = 0; i < 2; i++) parseSubscription(body);
    const parseMs: number[] = [];
    const cpuMs: number[] = [];
    const assignMs: number[] = [];
    const loadBefore = loadavg()[0] ?? 0;
    let result = parseSubscription(body);
    for (let i = 0; i < runs; i++) {
      const cpuStarted = process.cpuUsage();
      const started = performance.now();
      result = parseSubscription(body);
      parseMs.push(performance.now() - started);
      const cpu = process.cpuUsage(cpuStarted);
      cpuMs.push((cpu.user + cpu.system) / 1000);
      const assignStarted = performance.now();
      assignIds('bench-subscription', [], result.servers);
      assignMs.push(performance.now() - assignStarted);
    }
    const medianMs = median(parseMs);
    const withIdsMs = median(parseMs.map((ms, i) => ms + (assignMs[i] as number)));
    const p95Ms = quantile(parseMs, 0.95);
    return {
      links,
      body_bytes: Buffer.byteLength(body),
      format: result.format,
      servers_parsed: result.servers.length,
      rejected: result.rejected.length,
      runs,
      median_ms: round(medianMs, 1),
      p95_ms: round(p95Ms, 1),
      min_ms: round(Math.min(...parseMs), 1),
      max_ms: round(Math.max(...parseMs), 1),
      links_per_s_median: Math.round((links / medianMs) * 1000),
      with_ids_median_ms: round(withIdsMs, 1),
      links_per_s_with_ids_median: Math.round((links / withIdsMs) * 1000),
      links_per_s_p95: Math.round((links / p95Ms) * 1000),
      us_per_link_median: round((medianMs * 1000) / links, 2),
      // CPU time says how much work a run was, whatever else the machine was doing; the load
      // average says how much else that was (wall times on a busy machine are not the parser's).
      cpu_median_ms: round(median(cpuMs), 1),
      load_average_1m: round(Math.max(loadBefore, loadavg()[0] ?? 0), 2),
      assign_ids_median_ms: round(median(assignMs), 1),
      runs_ms: parseMs.map((ms) => round(ms, 1)),
    };
  },
};
