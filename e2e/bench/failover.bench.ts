/**
 * `npm run bench -- failover`: Auto failing over for real (issue 5's acceptance). The lab's 12
 * servers in 3 subscriptions, the real engine with Auto on for subscription A, a user's traffic
 * through the local proxy, and these scenarios (`--scenarios a,b,…`; all by default):
 * - `blackhole` on the current server: fault → first answer from another server's exit IP
 *   (target: median ≤ stall threshold + 0.6 s, p95 ≤ stall threshold + 1.5 s);
 * - `reset` on the current server: the same (target: median ≤ 1 s for every server kind), with the tunnel's
 *   `dialRetrying` / `dialFailure` signals and the core's own give-up time for new dials;
 * - `reset-ws`: the same with Auto on the subscription holding WebSocket servers (its others
 *   marked), where v2ray retries a failing dial for ~2 s (subscription A is all plain TCP);
 *   `--trials-reset-ws`, 5 by default, to keep a full run near 20 minutes;
 * - `offline`: the network gone for 60 s (`--offline-ms`): no switch, nothing recorded, the
 *   back-off schedule, traffic back through the same server ≤ 2 s after it returns; plus one
 *   longer loss (`--offline-long-ms`, 290 s; 0 skips it) so the 60 s and 2 min waits are seen too;
 * - `neighbour`: the current server and all of its subscription blackholed, the neighbours
 *   healthy: on a neighbour subscription's server, the widened check no later than 5 min after
 *   the first silence.
 * - `heal`: the current server blackholed for 3 s (`--heal-ms`), then healthy again, so the stall
 *   heals before the 5 s threshold: the probes the stall cost (Auto preparing its check at half
 *   the threshold) and false switches (goal 0); `--trials-heal`, 5 by default.
 * `--cores xray,v2ray` runs the whole bench once per main core, one after the other on the same
 * lab world, and keys the figures by core name (`--core NAME|PATH` for one; default v2ray, the
 * control): Xray is what users run, v2ray 4.34 the control beside it.
 * `--pause-before-fault-ms N` waits N ms more before every fault: with 16000 no earlier answer is
 * still in hand (a check after a dial failure takes a candidate's answer younger than 15 s without
 * probing it first), so the reset figures are those of a first failure rather than of one that
 * follows a check within seconds, as back-to-back trials do.
 * Before the engine starts, `reset_floor` times the core itself: a fresh request through a tunnel
 * of its own to each lab server set to reset (`--floor-rounds`, 1; 0 skips it).
 *
 * Method (also in the JSON's `method`):
 * - Exit: every request of the traffic asks the lab's api.country.is stand-in, which answers with
 *   the caller's address, i.e. the exit IP of the server that carried it.
 * - Trials are independent: before each, faults are lifted and Auto is turned off and on again
 *   (a fresh episode: the 3-switches-per-3-minutes allowance, return candidate and widening start
 *   over; Auto takes the best score), the tunnel carries traffic and Auto's cooldowns are over.
 *   Without that, trial n would meet the switch limit left by trials n−3…n−1.
 * - Probes: `auto_probes` are the servers Auto's checks asked for (its `check` lines); physical
 *   connections are counted from the cores' own logs, one `dialing` / `creating connection` line
 *   per dial attempt (retries included): PROBER-tagged lines are probe connections (the prober and
 *   reachability cores), TUNNEL-tagged ones the user's traffic. The lab's /counters give every
 *   connection its relays accepted; the difference is `unattributed_connections` (positive: a
 *   chained probe's second hop; negative: WebSocket dial retries cancelled before connecting).
 * - The monitor's background cycle is set to `--monitor-interval-ms` (1 h by default) so it does
 *   not run inside trials; the engine's event tests (a failing member, a new connection) still do.
 * - `--seed` fixes the lab's world (latencies, countries) and the 0–1 s pause before each fault.
 */
import type { Benchmark } from './harness';
import { median, option, quantile, round } from './harness';
import { blackholeTrial, type FailoverTrial, type HealTrial, healTrial, neighbourTrial, type NeighbourTrial, type OfflineTrial, offlineTrial, resetTrial, type ResetTrial } from './failover/scenarios';
import { type Spent, TrialKit } from './failover/trial';
import { type FloorSample, measureResetFloor } from './failover/dial-floor';
import { type FailoverWorld, spawnFailoverLab, startWorld } from './failover/world';
import { seeded } from '../../app/testing/random';

const SCENARIOS = ['blackhole', 'reset', 'reset-ws', 'offline', 'neighbour', 'heal'] as const;
type Scenario = (typeof SCENARIOS)[number];

export const failoverBenchmark: Benchmark = {
  name: 'failover',
  description: 'Auto failing over in the lab: blackhole, reset, network offline, whole subscription down (--trials, --trials-offline, --scenarios, --seed)',
  async run(args) {
    const trials = option(args, 'trials', 10);
    const offlineTrials = option(args, 'trials-offline', 3);
    const resetWsTrials = option(args, 'trials-reset-ws', 5);
    const healTrials = option(args, 'trials-heal', 5);
    const healMs = option(args, 'heal-ms', 3000);
    const seed = option(args, 'seed', 1);
    const offlineMs = option(args, 'offline-ms', 60_000);
    const offlineLongMs = option(args, 'offline-long-ms', 290_000);
    const chosen = option(args, 'scenarios', SCENARIOS.join(',')).split(',') as Scenario[];
    const unknown = chosen.filter((s) => !SCENARIOS.includes(s));
    if (unknown.length > 0) throw new Error(`unknown scenario(s): ${unknown.join(', ')}; choose from ${SCENARIOS.join(', ')}`);

    const cores = option(args, 'cores', option(args, 'core', 'v2ray')).split(',').map((c) => c.trim()).filter(Boolean);
    const perCore: Record<string, unknown> = {};
    for (const core of cores) {
      process.stderr.write(`[failover] core ${core}\n`);
      perCore[core] = await runFor(core);
    }
    return cores.length === 1 ? perCore[cores[0]!] as Record<string, unknown> : { cores: perCore };

    async function runFor(core: string): Promise<Record<string, unknown>> {
    const began = Date.now();
    const progress = (line: string) => process.stderr.write(`[failover] ${line}\n`);
    const out: Record<string, unknown> = {};
    const lab = await spawnFailoverLab(seed);
    let world: FailoverWorld | null = null;
    let kit: TrialKit | null = null;
    try {
      // Before the engine starts: these faults are not Auto's to see.
      const floorRounds = option(args, 'floor-rounds', 1);
      if (floorRounds > 0) {
        const samples = await measureResetFloor(lab, floorRounds, core);
        progress(`reset floor: ${JSON.stringify(samples)}`);
        out.reset_floor = summarizeFloor(samples);
      }
      world = await startWorld({ lab, core, monitorIntervalMs: option(args, 'monitor-interval-ms', 3_600_000), verbose: args.includes('--verbose') });
      kit = new TrialKit(world, seeded(seed, 'failover-phase'), option(args, 'pause-before-fault-ms', 0));
      const settings = (await world.snapshot()).settings;
      const stallMs = settings.stallThresholdMs;
      out.seed = seed;
      out.settings = {
        stall_threshold_ms: stallMs,
        probe_timeout_ms: settings.monitor.urlTestTimeoutMs,
        traffic_request_every_ms: 250,
        traffic_request_timeout_ms: 3000,
        monitor_interval_ms: settings.monitor.intervalMs,
        lab: '12 servers, 3 subscriptions (A, B, C), latency 20–300 ms each way',
      };
      out.setup_s = round((Date.now() - began) / 1000);
      for (const scenario of chosen) {
        const n = scenario === 'offline' ? offlineTrials : scenario === 'reset-ws' ? resetWsTrials : scenario === 'heal' ? healTrials : trials;
        const results: unknown[] = [];
        const started = Date.now();
        const ws = scenario === 'reset-ws' ? await preferWebSocket(world) : null;
        for (let i = 0; i < n; i++) {
          const result =
            scenario === 'blackhole' ? await blackholeTrial(kit)
            : scenario === 'reset' ? await resetTrial(kit)
            : scenario === 'reset-ws' ? await resetTrial(kit, ws!.subscriptionIndex)
            : scenario === 'offline' ? await offlineTrial(kit, offlineMs)
            : scenario === 'heal' ? await healTrial(kit, healMs, stallMs)
            : await neighbourTrial(kit);
          progress(`${scenario} ${i + 1}/${n}: ${JSON.stringify(result)}`);
          results.push(result);
        }
        const summary =
          scenario === 'blackhole' ? summarizeBlackhole(results as FailoverTrial[], stallMs)
          : scenario === 'reset' || scenario === 'reset-ws' ? summarizeReset(results as ResetTrial[])
          : scenario === 'offline' ? summarizeOffline(results as OfflineTrial[])
          : scenario === 'heal' ? summarizeHeal(results as HealTrial[])
          : summarizeNeighbour(results as NeighbourTrial[]);
        const extra: Record<string, unknown> = {};
        if (ws) {
          await ws.restore();
          extra.setup = `Auto on subscription ${ws.name} with its non-WebSocket servers marked, so the current server and the one Auto moves to are WebSocket servers`;
        }
        if (scenario === 'offline' && offlineLongMs > 0) {
          const long = await offlineTrial(kit, offlineLongMs);
          progress(`offline (long) 1/1: ${JSON.stringify(long)}`);
          extra.long_trial = { ...long, backoff_as_spec: backoffAsSpec(long) };
        }
        out[scenario.replace('-', '_')] = { ...summary, ...extra, duration_s: round((Date.now() - started) / 1000), per_trial: results };
      }
      out.core = (await world.snapshot()).core;
      out.method = METHOD;
      out.total_s = round((Date.now() - began) / 1000);
      return out;
    } finally {
      await kit?.restore();
      await world?.stop();
      await lab.stop();
    }
    }
  },
};

/**
 * For `reset-ws`: the subscription with the most WebSocket servers (at least two), its other
 * servers marked so Auto keeps to WebSocket ones; `restore` lifts the marks.
 */
async function preferWebSocket(world: FailoverWorld): Promise<{ subscriptionIndex: number; name: string; restore(): Promise<void> }> {
  const subscriptions = (await world.snapshot()).subscriptions;
  const isWebSocket = (id: string) => world.server(id)?.transport.network === 'ws';
  const counted = subscriptions.map((s, i) => ({ i, s, ws: s.servers.filter((v) => isWebSocket(v.id)) }));
  const best = counted.sort((a, b) => b.ws.length - a.ws.length)[0];
  if (!best || best.ws.length < 2) throw new Error('reset-ws needs a subscription with two WebSocket servers');
  const others = best.s.servers.filter((v) => !isWebSocket(v.id)).map((v) => v.id);
  await world.engine.setExcluded({ subscriptionId: best.s.id, serverIds: others });
  return {
    subscriptionIndex: best.i,
    name: world.labOf(best.s.servers[0]!.id).subscription,
    restore: async () => void (await world.engine.setExcluded({ subscriptionId: best.s.id, serverIds: [] })),
  };
}

const METHOD = [
  'recovery: the bench asks the lab for the fault → first answer through the local proxy whose exit IP (api.country.is stand-in) is another server’s',
  'detect: fault → Auto’s check line; check: that check → its switch line; reconnect: switch line → that first answer',
  'each trial: faults lifted, Auto off and on for A (fresh episode), cooldowns over, a seeded 0–1 s pause, then the fault',
  'auto_probes: servers in Auto’s check lines; prober_dials / tunnel_dials: TCP dials in the cores’ own logs (PROBER / TUNNEL tags); lab_connections: relay /counters',
  'answers_in_hand: candidates whose answer younger than 15 s the switching check counted without waiting for their probe (a dial failure’s check); decided_from_answers_in_hand: trials whose switch went to a server on its answer in hand, before its own probe returned',
  'window for counts: just before the fault → 1 s after recovery (offline: → 5 s after the network returned)',
].join('; ');

function stats(prefix: string, values: (number | null)[]): Record<string, number | null> {
  const v = values.filter((x): x is number => x !== null);
  if (v.length === 0) return { [`${prefix}_median_ms`]: null };
  return {
    [`${prefix}_median_ms`]: round(median(v)),
    [`${prefix}_p95_ms`]: round(quantile(v, 0.95)),
    [`${prefix}_min_ms`]: round(Math.min(...v)),
    [`${prefix}_max_ms`]: round(Math.max(...v)),
  };
}

function spentSummary(spent: Spent[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const key of Object.keys(spent[0] ?? {}) as (keyof Spent)[]) {
    const values = spent.map((s) => s[key]);
    out[`${key}_median`] = round(median(values));
    out[`${key}_total`] = values.reduce((a, b) => a + b, 0);
  }
  return out;
}

function count(values: (string | null)[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const v of values) out[v ?? 'none'] = (out[v ?? 'none'] ?? 0) + 1;
  return out;
}

const decidedFromAnswersInHand = (t: FailoverTrial) => t.switched_on_answer_in_hand;

function failoverSummary(trials: FailoverTrial[]) {
  const recovered = trials.filter((t) => t.recovery_ms !== null);
  return {
    trials: trials.length,
    recovered: recovered.length,
    ...stats('recovery', trials.map((t) => t.recovery_ms)),
    ...stats('detect', trials.map((t) => t.detect_ms)),
    ...stats('check', trials.map((t) => t.check_ms)),
    ...stats('reconnect', trials.map((t) => t.reconnect_ms)),
    ...stats('others_answered', trials.map((t) => t.others_answered_ms)),
    triggers: count(trials.map((t) => t.trigger)),
    decided_from_answers_in_hand: trials.filter(decidedFromAnswersInHand).length,
    landed_in: count(trials.map((t) => t.to_subscription)),
    probes: spentSummary(trials.map((t) => t.spent)),
  };
}

function summarizeBlackhole(trials: FailoverTrial[], stallMs: number) {
  const summary = failoverSummary(trials);
  const values = trials.map((t) => t.recovery_ms ?? Number.POSITIVE_INFINITY);
  const medianMs = median(values);
  const p95Ms = quantile(values, 0.95);
  return {
    ...summary,
    // Preparing at half the threshold lets the check decide as it starts: stall + 0.6 s, + 1.5 s.
    target: {
      median_le_ms: stallMs + 600,
      p95_le_ms: stallMs + 1500,
      median_met: medianMs <= stallMs + 600,
      p95_met: p95Ms <= stallMs + 1500,
    },
  };
}

function summarizeReset(trials: ResetTrial[]) {
  const values = trials.map((t) => t.recovery_ms ?? Number.POSITIVE_INFINITY);
  const byKind: Record<string, { trials: number; dial_failure_median_ms: number | null; recovery_median_ms: number | null; decided_from_answers_in_hand: number }> = {};
  for (const kind of new Set(trials.map((t) => t.protocol))) {
    const mine = trials.filter((t) => t.protocol === kind);
    const failures = mine.map((t) => t.dial_failure_ms).filter((x): x is number => x !== null);
    const recoveries = mine.map((t) => t.recovery_ms).filter((x): x is number => x !== null);
    byKind[kind] = {
      trials: mine.length,
      dial_failure_median_ms: failures.length ? round(median(failures)) : null,
      recovery_median_ms: recoveries.length ? round(median(recoveries)) : null,
      decided_from_answers_in_hand: mine.filter(decidedFromAnswersInHand).length,
    };
  }
  return {
    ...failoverSummary(trials),
    ...stats('new_dial_give_up', trials.flatMap((t) => t.new_dials.map((d) => d.give_up_ms))),
    new_dials_retried: trials.reduce((n, t) => n + t.new_dials.filter((d) => d.attempts > 1).length, 0),
    new_dials: trials.reduce((n, t) => n + t.new_dials.length, 0),
    ...stats('dial_retrying', trials.map((t) => t.dial_retrying_ms)),
    ...stats('dial_failure', trials.map((t) => t.dial_failure_ms)),
    dial_retrying_seen: trials.filter((t) => t.dial_retrying_ms !== null).length,
    dial_failure_kinds: count(trials.map((t) => t.dial_failure_kind)),
    by_server_kind: byKind,
    // Every server kind, WebSocket included: the dial failure already says the server is gone.
    target: {
      median_le_ms: 1000,
      median_met: median(values) <= 1000,
      every_kind_met: Object.values(byKind).every((k) => k.recovery_median_ms !== null && k.recovery_median_ms <= 1000),
    },
  };
}

function summarizeFloor(samples: FloorSample[]) {
  const byKind: Record<string, unknown> = {};
  for (const kind of new Set(samples.map((s) => s.kind))) {
    const mine = samples.filter((s) => s.kind === kind);
    const values = (pick: (s: FloorSample) => number | null) => mine.map(pick).filter((x): x is number => x !== null);
    const retry = values((s) => s.retry_ms);
    const giveUp = values((s) => s.give_up_ms);
    byKind[kind] = {
      samples: mine.length,
      attempts_median: round(median(mine.map((s) => s.attempts))),
      retry_median_ms: retry.length ? round(median(retry)) : null,
      give_up_median_ms: giveUp.length ? round(median(giveUp)) : null,
      failure_kinds: count(mine.map((s) => s.failure_kind)),
      dial_retrying_events: mine.filter((s) => s.dial_retrying_event).length,
      dial_failure_events: mine.filter((s) => s.dial_failure_event).length,
    };
  }
  const retried = samples.filter((s) => s.attempts > 1);
  return {
    what: 'a fresh request through a tunnel of its own to each lab server set to reset: the core’s first dial → its second dial (retry) → its failure line',
    samples: samples.length,
    retried: retried.length,
    ...stats('retry', retried.map((s) => s.retry_ms)),
    ...stats('give_up_when_retried', retried.map((s) => s.give_up_ms)),
    ...stats('give_up_without_retry', samples.filter((s) => s.attempts === 1).map((s) => s.give_up_ms)),
    by_kind: byKind,
  };
}

/** T_k = min(15 · 2^(k−1), 120) s (spec/auto.md). */
const backoffMs = (attempt: number) => Math.min(15_000 * 2 ** (attempt - 1), 120_000);

/** Every network-lost line announced T_k for its attempt k = 1, 2, …, and the next check came T_k (+ < 1 s) later. */
function backoffAsSpec(t: OfflineTrial): boolean {
  return (
    t.network_lost.length > 0 &&
    t.network_lost.every((l, i) => l.attempt === i + 1 && l.next_in_ms === backoffMs(l.attempt)) &&
    t.observed_waits_ms.every((w, i) => w >= t.network_lost[i]!.next_in_ms && w <= t.network_lost[i]!.next_in_ms + 1000)
  );
}

function summarizeOffline(trials: OfflineTrial[]) {
  const scheduleAsSpec = trials.every(backoffAsSpec);
  return {
    trials: trials.length,
    switches_total: trials.reduce((n, t) => n + t.switches, 0),
    recorded_probe_results_total: trials.reduce((n, t) => n + t.recorded_probe_results, 0),
    unrecorded_probe_results_total: trials.reduce((n, t) => n + t.unrecorded_probe_results, 0),
    history_measurements_during_loss_total: trials.reduce((n, t) => n + t.history_measurements, 0),
    ...stats('back', trials.map((t) => t.back_ms)),
    back_through_same_server: trials.filter((t) => t.back_through_same_server).length,
    backoff_next_in_ms_seen: [...new Set(trials.flatMap((t) => t.network_lost.map((l) => l.next_in_ms)))],
    probes: spentSummary(trials.map((t) => t.spent)),
    target: {
      zero_switches: trials.every((t) => t.switches === 0),
      zero_recorded: trials.every((t) => t.recorded_probe_results === 0 && t.history_measurements === 0),
      backoff_as_spec: scheduleAsSpec,
      back_le_2000_ms_same_server: trials.every((t) => t.back_ms !== null && t.back_ms <= 2000 && t.back_through_same_server),
    },
  };
}

function summarizeHeal(trials: HealTrial[]) {
  return {
    trials: trials.length,
    false_switches_total: trials.reduce((n, t) => n + t.switches, 0),
    checks_total: trials.reduce((n, t) => n + t.checks, 0),
    prepared_total: trials.reduce((n, t) => n + t.prepared, 0),
    extra_probes_per_stall_median: round(median(trials.map((t) => t.extra_probes))),
    extra_probes_total: trials.reduce((n, t) => n + t.extra_probes, 0),
    ...stats('back', trials.map((t) => t.back_ms)),
    probes: spentSummary(trials.map((t) => t.spent)),
    target: { zero_false_switches: trials.every((t) => t.switches === 0) },
  };
}

function summarizeNeighbour(trials: NeighbourTrial[]) {
  return {
    ...failoverSummary(trials),
    ...stats('own_silent', trials.map((t) => t.own_silent_ms)),
    ...stats('widened_after', trials.map((t) => t.widened_after_ms)),
    neighbour_probes_median: round(median(trials.map((t) => t.neighbour_probes))),
    on_neighbour: trials.filter((t) => t.on_neighbour).length,
    target: {
      all_on_neighbour: trials.every((t) => t.on_neighbour),
      widened_within_5_min: trials.every((t) => t.widened_after_ms !== null && t.widened_after_ms <= 300_000),
    },
  };
}
