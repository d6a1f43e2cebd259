/**
 * `npm run cli -- speedtest --subscription <url|file> [--servers A,B,…] [--bytes N] [--parallel K]
 * [--url TEMPLATE] [--core xray|v2ray|PATH]`: the app's bulk speed test without a window. Each
 * server (all of the subscription's, or those named by id, name or a unique part of a name)
 * downloads N bytes (default 10 MB) through itself, K at a time (default 2), from `--url` with
 * `{bytes}` replaced (default: Cloudflare's speed test). One JSON line per server as it finishes,
 * then a summary table, fastest first. Ctrl-C stops every download at once and still prints the
 * table of what was measured. Exit 0 when at least one server was measured, 1 when none was (or it
 * could not start), 2 on a usage error.
 */
import type { Server } from '../../../shared/domain/server';
import { DEFAULT_SPEED_TEST_BYTES, DEFAULT_SPEED_TEST_PARALLEL, MAX_SPEED_TEST_BYTES, MAX_SPEED_TEST_PARALLEL, MIN_SPEED_TEST_BYTES, type SpeedTestResult } from '../../../shared/domain/speed-test';
import { monitorSettingsSchema } from '../../../shared/settings';
import { systemClock } from '../../../app/clock';
import { findCore, probeOutboundMark } from '../../../app/engine/core-pieces';
import { Logger, stderrSink } from '../../../app/log/logger';
import { Monitor } from '../../../app/monitor/monitor';
import { defaultDataDir } from '../../../app/paths';
import { CarrierProber } from '../../../app/tunnel/carrier-prober';
import { coreOption, readOptions, UsageError } from '../../args';
import { CliError, repositoryResources } from '../support';
import { loadServers } from './connect';
import { join } from 'node:path';

const USAGE = 'usage: npm run cli -- speedtest --subscription <url|file> [--servers A,B,…] [--bytes N] [--parallel K] [--url TEMPLATE] [--core xray|v2ray|PATH]';

export interface SpeedtestArgs {
  subscription: string;
  servers: string[];
  bytes: number;
  parallel: number;
  /** The download address with `{bytes}` in it. */
  url?: string;
  corePath?: string;
}

function integer(flag: string, raw: string | undefined, fallback: number, min: number, max: number): number {
  if (raw === undefined) return fallback;
  const n = Number(raw);
  if (!/^\d+$/.test(raw) || n < min || n > max) throw new UsageError(`${flag} needs a whole number from ${min} to ${max}, got "${raw}"\n${USAGE}`);
  return n;
}

export function parseSpeedtestArgs(argv: readonly string[]): SpeedtestArgs {
  const { values } = readOptions(
    argv,
    { subscription: { type: 'string' }, servers: { type: 'string', multiple: true }, bytes: { type: 'string' }, parallel: { type: 'string' }, url: { type: 'string' }, core: { type: 'string' } },
    USAGE,
  );
  if (!values.subscription) throw new UsageError(`--subscription is required\n${USAGE}`);
  if (values.url !== undefined && !/^https?:\/\/.+\{bytes\}/.test(values.url)) throw new UsageError(`--url must be an http(s) address with {bytes} in it, got "${values.url}"\n${USAGE}`);
  const corePath = coreOption(values.core);
  return {
    subscription: values.subscription,
    servers: (values.servers ?? []).flatMap((list) => list.split(',')).map((s) => s.trim()).filter((s) => s !== ''),
    bytes: integer('--bytes', values.bytes, DEFAULT_SPEED_TEST_BYTES, MIN_SPEED_TEST_BYTES, MAX_SPEED_TEST_BYTES),
    parallel: integer('--parallel', values.parallel, DEFAULT_SPEED_TEST_PARALLEL, 1, MAX_SPEED_TEST_PARALLEL),
    ...(values.url !== undefined ? { url: values.url } : {}),
    ...(corePath !== undefined ? { corePath } : {}),
  };
}

/** Servers named by id, exact name, or a unique part of a name; all of them when none is named. */
export function pickServers(servers: readonly Server[], wanted: readonly string[]): Server[] {
  if (wanted.length === 0) return [...servers];
  const picked = wanted.map((name) => {
    const exact = servers.find((s) => s.id === name) ?? servers.find((s) => s.name === name);
    if (exact) return exact;
    const partial = servers.filter((s) => s.name.toLowerCase().includes(name.toLowerCase()));
    if (partial.length === 1) return partial[0] as Server;
    if (partial.length > 1) throw new UsageError(`"${name}" matches ${partial.length} servers: ${partial.map((s) => `${s.id} (${s.name})`).join(', ')}`);
    throw new UsageError(`no server "${name}" in the subscription`);
  });
  return [...new Map(picked.map((s) => [s.id, s])).values()];
}

/** One server's line of JSON. */
export function resultLine(server: Server, result: SpeedTestResult): string {
  return JSON.stringify({
    id: server.id,
    name: server.name,
    ok: result.bytesPerSecond !== null,
    bytes: result.bytes,
    bytes_per_second: result.bytesPerSecond,
    mb_per_s: result.bytesPerSecond === null ? null : Math.round(result.bytesPerSecond / 10_000) / 100,
    error: result.error,
    at: new Date(result.at).toISOString(),
  });
}

/** The table after the lines: measured servers fastest first, then the failed, then those not reached. */
export function summaryTable(servers: readonly Server[], results: ReadonlyMap<string, SpeedTestResult>): string {
  const rank = (s: Server) => results.get(s.id)?.bytesPerSecond ?? (results.has(s.id) ? -1 : -2);
  const rows = [...servers].sort((a, b) => rank(b) - rank(a));
  const width = Math.min(40, Math.max(6, ...rows.map((s) => s.name.length)));
  const line = (name: string, speed: string, note: string) => `${name.slice(0, width).padEnd(width)}  ${speed.padStart(9)}  ${note}`;
  const out = [line('server', 'MB/s', ''), line('-'.repeat(width), '-'.repeat(9), '')];
  for (const s of rows) {
    const r = results.get(s.id);
    out.push(line(s.name, r?.bytesPerSecond != null ? (r.bytesPerSecond / 1e6).toFixed(2) : '-', r ? (r.error ?? `${r.bytes} bytes`) : 'not tested (cancelled)'));
  }
  const measured = rows.filter((s) => results.get(s.id)?.bytesPerSecond != null).length;
  out.push(`${measured} measured, ${[...results.values()].filter((r) => r.bytesPerSecond === null).length} failed, ${servers.length - results.size} not tested`);
  return out.map((l) => l.trimEnd()).join('\n');
}

export async function run(argv: readonly string[]): Promise<number> {
  let args: SpeedtestArgs;
  try {
    args = parseSpeedtestArgs(argv);
  } catch (error) {
    console.error((error as Error).message);
    return error instanceof UsageError ? error.exitCode : 2;
  }
  // Standard output is the JSON lines and the table; what is said along the way goes to stderr.
  const logger = new Logger({ level: 'warning', sinks: [stderrSink] });
  let chosen: Server[];
  let all: Server[];
  try {
    all = await loadServers(args.subscription, logger);
    chosen = pickServers(all, args.servers);
  } catch (error) {
    console.error(error instanceof Error ? error.message : String(error));
    return error instanceof UsageError ? 2 : error instanceof CliError ? error.exitCode : 1;
  }
  const found = await findCore({ corePath: args.corePath ?? null, resourcesDir: repositoryResources() }, logger);
  if ('problem' in found) {
    console.error(found.problem.detail);
    return 1;
  }
  const prober = new CarrierProber({
    core: found.profile,
    carriers: found.carriers,
    runtimeDir: join(defaultDataDir(), 'cli', 'runtime'),
    logger,
    outboundMark: await probeOutboundMark(found.profile),
  });
  const template = args.url;
  const monitor = new Monitor({
    prober,
    clock: systemClock,
    logger,
    settings: monitorSettingsSchema.parse({}),
    cacheFile: null,
    servers: () => all,
    selections: () => [],
    throughputUrl: template ? (bytes) => template.replaceAll('{bytes}', String(bytes)) : undefined,
  });
  const results = new Map<string, SpeedTestResult>();
  const byId = new Map(all.map((s) => [s.id, s]));
  monitor.onSpeedTestResult(({ serverId, result }) => {
    results.set(serverId, result);
    const server = byId.get(serverId);
    if (server) console.log(resultLine(server, result));
  });
  const onSignal = () => void monitor.cancelSpeedTest();
  // The engine's timers and the prober's core do not hold the process open; the command does until the run ends.
  const keepAlive = setInterval(() => undefined, 60_000);
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    prober.setServers(all);
    await prober.settled();
    monitor.startSpeedTest({ serverIds: chosen.map((s) => s.id), bytes: args.bytes, parallel: args.parallel });
    await monitor.speedTestIdle();
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    await monitor.stop();
    await prober.close();
    clearInterval(keepAlive);
  }
  console.log(summaryTable(chosen, results));
  return [...results.values()].some((r) => r.bytesPerSecond !== null) ? 0 : 1;
}
