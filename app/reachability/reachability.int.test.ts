/**
 * Reachability against the lab, wired as the app wires it: the real monitor testing every lab
 * server through the real prober core (CoreProber), IP info from the lab's stand-ins through each
 * server, the chained prober dialling targets through other lab servers with its own core, and
 * the reachability runtime on the system clock. The monitor runs every 5 s, so "within two
 * monitor intervals" is 10 s. Figures (time to each verdict, probes spent) are printed.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type InProcessLab, startLab } from '../../e2e/lab';
import type { Server, ServerId } from '../../shared/domain/server';
import type { Verdict } from '../../shared/domain/status';
import { monitorSettingsSchema } from '../../shared/settings';
import { systemClock } from '../clock';
import { type CoreProfile, detectCore } from '../core';
import { memoryLogger } from '../log/logger';
import { Monitor } from '../monitor/monitor';
import { assignIds } from '../subscriptions/identity';
import { parseSubscription } from '../subscriptions/parse';
import { CoreProber } from '../tunnel/prober';
import { ChainedProber } from './chained-prober';
import { ReachabilityRuntime } from './reachability';

const INTERVAL_MS = 5000;
// The lab's URL test takes 100–300 ms; a blackholed one takes the whole timeout, and a verdict
// needs three failures from here, so the timeout is what the two-interval budget is spent on.
const URL_TIMEOUT_MS = 800;

let lab: InProcessLab;
let servers: Server[];
let core: CoreProfile;
let runtimeDir: string;
const figures: Record<string, unknown> = {};

beforeAll(async () => {
  lab = await startLab({ servers: 8, subscriptions: 1, latency: [20, 40] });
  const parsed = parseSubscription(lab.info.servers.map((s) => s.shareLink).join('\n'));
  expect(parsed.rejected).toEqual([]);
  servers = assignIds('lab', [], parsed.servers);
  core = await detectCore('/usr/bin/v2ray');
  runtimeDir = await mkdtemp(join(tmpdir(), 'steadfast-reachability-'));
});

afterAll(async () => {
  await lab?.stop();
  if (runtimeDir) await rm(runtimeDir, { recursive: true, force: true });
  console.info(`reachability figures: ${JSON.stringify(figures)}`);
});

const labId = (server: Server) => lab.info.servers[servers.indexOf(server)]?.id as string;
/** A lab server the core can dial through another one (v2ray 4.34 chains plain TCP only). */
const plainTcp = () => servers.filter((s) => s.transport.network === 'tcp' && s.security.type === 'none');

/** The app's wiring of monitor + prober + chained prober + reachability, over `list`. */
async function stack(list: Server[], name: string) {
  const log = memoryLogger('info');
  const prober = new CoreProber({ core, runtimeDir, logger: log.logger, rebuildDebounceMs: 20 });
  prober.setServers(list);
  await prober.settled();
  const settings = monitorSettingsSchema.parse({
    intervalMs: INTERVAL_MS,
    urlTestTimeoutMs: URL_TIMEOUT_MS,
    urls: [lab.info.target],
    ipInfoUrl: lab.info.ipinfo,
    ipInfoUrls: lab.info.ipinfoUrls,
    transferTestUrl: `${lab.info.bytes}/{bytes}`,
    idleTimeoutMs: 3600_000,
    debounceWindowMs: 100,
  });
  const monitor = new Monitor({ prober, clock: systemClock, logger: log.logger, settings, cacheFile: null, servers: () => list, selections: () => [] });
  const vantages = new ChainedProber({ core, runtimeDir, logger: log.logger, url: () => lab.info.target, idleMs: 3000 });
  const runtime = new ReachabilityRuntime({
    clock: systemClock,
    logger: log.logger,
    servers: () => list,
    monitor,
    here: monitor,
    vantages,
    settings: () => ({ intervalMs: settings.intervalMs, urlTestTimeoutMs: settings.urlTestTimeoutMs, trustedCheckerId: null }),
  });
  const seen: { at: number; serverId: ServerId; verdict: Verdict; reason: string }[] = [];
  runtime.onChange((c) => seen.push({ at: Date.now(), serverId: c.serverId, verdict: c.current.verdict, reason: c.current.reason }));
  await monitor.start();
  monitor.trafficSeen();
  runtime.start();
  const s = {
    log,
    monitor,
    runtime,
    vantages,
    seen,
    /** Resolves with ms from `since` when `id` gets `verdict`; rejects after `withinMs`. */
    async until(id: ServerId, verdict: Verdict, since: number, withinMs: number): Promise<number> {
      const deadline = Math.max(since, Date.now()) + withinMs;
      while (Date.now() <= deadline) {
        const hit = seen.find((c) => c.serverId === id && c.verdict === verdict && c.at >= since);
        if (hit) return hit.at - since;
        await new Promise((r) => setTimeout(r, 50));
      }
      const last = runtime.reachability(id);
      throw new Error(`${name}: ${id} did not become ${verdict} within ${withinMs} ms; it is ${last?.verdict}: ${last?.reason}\n${s.lines().slice(-30).join('\n')}`);
    },
    lines: () => log.records.filter((r) => r.tag === 'MONITORING' && r.message.startsWith('reachability:')).map((r) => `${new Date(r.at).toISOString().slice(17, 23)} ${r.message}`),
    async stop() {
      runtime.stop();
      await monitor.stop();
      await vantages.stop();
      await prober.close();
    },
  };
  // The first cycle and the IP lookups through every server: every verdict ok.
  for (const server of list) await s.until(server.id, 'ok', 0, 15_000);
  return s;
}

async function fault(server: Server, mode: 'blocked-here' | 'refuse' | 'none'): Promise<number> {
  const i = servers.indexOf(server);
  await lab.setFault(labId(server), mode === 'none' ? { fault: 'none', latencyMs: lab.info.servers[i]?.latencyMs } : { fault: mode });
  return Date.now();
}

describe('ChainedProber: a target dialled through another lab server', () => {
  it('reaches a server blocked for the user through a vantage point, not a refusing one, and says so when the vantage itself is gone', async () => {
    const log = memoryLogger('info');
    const vantages = new ChainedProber({ core, runtimeDir, logger: log.logger, url: () => lab.info.target, idleMs: 500 });
    const [target, vantage, other] = plainTcp() as [Server, Server, Server];
    try {
      const first = await vantages.reachThrough(vantage, target, 3000);
      expect(first, JSON.stringify(first)).toMatchObject({ reached: true });
      await fault(target, 'blocked-here');
      const blocked = await vantages.reachThrough(vantage, target, 3000);
      expect(blocked).toMatchObject({ reached: true });
      await fault(target, 'refuse');
      const refused = await vantages.reachThrough(vantage, target, 3000);
      expect(refused).toMatchObject({ reached: false });
      expect(refused.inconclusive).toBeUndefined();
      await fault(target, 'none');
      await fault(vantage, 'blocked-here');
      const noVantage = await vantages.reachThrough(vantage, other, 2000);
      expect(noVantage).toMatchObject({ reached: false, inconclusive: true, error: expect.stringContaining(`${vantage.name} itself did not answer from here`) });
      figures.chained = { reachedMs: blocked.delayMs, refused: refused.error, coresStarted: vantages.stats().coresStarted, coreStartMs: vantages.stats().startMs };
      // Idle: its core stops by itself.
      await new Promise((r) => setTimeout(r, 1500));
      expect(vantages.stats().running).toBe(false);
    } finally {
      await fault(target, 'none');
      await fault(vantage, 'none');
      await vantages.stop();
    }
  });

  it('refuses to chain what v2ray 4.34 cannot (a WebSocket or TLS target)', () => {
    const vantages = new ChainedProber({ core, runtimeDir, logger: memoryLogger().logger, url: () => lab.info.target });
    const ws = servers.find((s) => s.transport.network === 'ws') as Server;
    expect(vantages.unsupported(servers[0] as Server, ws)).toMatch(/needs v2ray ≥ 4\.35 or Xray/);
    expect(vantages.unsupported(ws, servers[0] as Server)).toBeNull();
  });
});

describe('reachability verdicts in the lab (monitor every 5 s)', () => {
  it('blocked-here → blocked here within two intervals naming the vantage points; refuse → down; lifted → ok without any action', async () => {
    const s = await stack(servers, 'all servers');
    const [blocked, refused] = plainTcp() as [Server, Server];
    try {
      let since = await fault(blocked, 'blocked-here');
      const blockedMs = await s.until(blocked.id, 'blocked-here', since, 2 * INTERVAL_MS);
      const reach = s.runtime.reachability(blocked.id);
      expect(reach?.vantagePoints.filter((v) => v.reached).length).toBeGreaterThanOrEqual(2);
      for (const v of reach?.vantagePoints ?? []) expect(reach?.reason).toContain(servers.find((x) => x.id === v.serverId)?.name);
      expect(reach?.reason).toMatch(/reached through .*\(AS\d+.* and .*\(AS\d+.*but it failed from here \d+ times in a row/);
      // Nobody else was blamed meanwhile.
      expect(s.seen.filter((c) => c.serverId !== blocked.id && (c.verdict === 'down' || c.verdict === 'blocked-here'))).toEqual([]);

      since = await fault(blocked, 'none');
      const healedMs = await s.until(blocked.id, 'ok', since, 2 * INTERVAL_MS + 2000);

      since = await fault(refused, 'refuse');
      const downMs = await s.until(refused.id, 'down', since, 2 * INTERVAL_MS + 4000);
      expect(s.runtime.reachability(refused.id)?.reason).toMatch(/^not reached through .* and .*: the server looks down/);
      since = await fault(refused, 'none');
      const downHealedMs = await s.until(refused.id, 'ok', since, 2 * INTERVAL_MS + 2000);

      const budget = s.runtime.budget();
      figures.lab = {
        interval_ms: INTERVAL_MS,
        blocked_here_after_ms: blockedMs,
        blocked_ok_again_after_ms: healedMs,
        down_after_ms: downMs,
        down_ok_again_after_ms: downHealedMs,
        spent_per_verdict: budget.verdicts.map((b) => ({ server: labId(servers.find((x) => x.id === b.serverId) as Server), verdict: b.verdict, vantage_probes: b.vantageProbes, inconclusive: b.inconclusiveProbes, rounds: b.rounds, confirmations: b.confirmations, since_first_failure_ms: b.sinceFirstFailureMs })),
        totals: { vantage_probes: budget.vantageProbes, rounds: budget.rounds, confirmations: budget.confirmations, cores_started: s.vantages.stats().coresStarted, core_start_ms: s.vantages.stats().startMs },
      };
      console.info(s.lines().join('\n'));
      // At most 3 vantage probes per round.
      for (const b of budget.verdicts) expect(b.vantageProbes).toBeLessThanOrEqual(3 * b.rounds);
    } finally {
      await fault(blocked, 'none');
      await fault(refused, 'none');
      await s.stop();
    }
  });

  it('network offline → no server gets down or blocked here; online → ok again', async () => {
    const s = await stack(servers, 'offline');
    try {
      const since = Date.now();
      await lab.setNetwork('offline');
      await new Promise((r) => setTimeout(r, 4 * INTERVAL_MS));
      const blamed = s.seen.filter((c) => c.at >= since && (c.verdict === 'down' || c.verdict === 'blocked-here'));
      expect(blamed).toEqual([]);
      const verdicts = servers.map((x) => s.runtime.verdict(x.id));
      expect(verdicts.every((v) => v === 'unknown' || v === 'failing')).toBe(true);
      expect(s.lines().some((l) => /your network looks down: \d+ of 8 servers that worked fail from here at once: no server is blamed/.test(l))).toBe(true);
      const back = await lab.setNetwork('online').then(() => Date.now());
      let okAfter = 0;
      for (const server of servers) okAfter = Math.max(okAfter, await s.until(server.id, 'ok', back, 2 * INTERVAL_MS + 2000));
      figures.offline = { verdicts_while_offline: countBy(verdicts), all_ok_again_after_ms: okAfter, vantage_probes: s.runtime.budget().vantageProbes };
    } finally {
      await lab.setNetwork('online');
      await s.stop();
    }
  });

  it('with only one other working server the verdict is unknown, and says why', async () => {
    const [target, only] = plainTcp() as [Server, Server];
    const s = await stack([target, only], 'two servers');
    try {
      const since = await fault(target, 'blocked-here');
      await s.until(target.id, 'failing', since, 2 * INTERVAL_MS);
      // Give it the time a verdict would take, and more.
      await new Promise((r) => setTimeout(r, 2 * INTERVAL_MS));
      const reach = s.runtime.reachability(target.id);
      expect(reach?.verdict).toBe('unknown');
      expect(reach?.reason).toMatch(new RegExp(`^reached through ${escape(only.name)} \\(AS\\d+.*\\) only, while it failed from here \\d+ times in a row over .*; need two independent vantage points \\(only ${escape(only.name)} works from here in another exit network\\)$`));
      expect(s.seen.filter((c) => c.verdict === 'down' || c.verdict === 'blocked-here')).toEqual([]);
      figures.one_vantage = { verdict: reach?.verdict, vantage_probes: s.runtime.budget().vantageProbes, rounds: s.runtime.budget().rounds };
    } finally {
      await fault(target, 'none');
      await s.stop();
    }
  });
});

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function countBy(values: (string | null)[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const v of values) out[String(v)] = (out[String(v)] ?? 0) + 1;
  return out;
}
