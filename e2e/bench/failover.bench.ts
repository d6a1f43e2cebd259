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
 * `--kinds plain,reality,hysteria2` (all by default) chooses who takes part in `blackhole` and
 * `reset`. With a modern kind the lab also runs its block on real Xray and sing-box servers, and
 * subscription A is served as A1–A4 and then the VLESS + REALITY + Vision server and the Hysteria2
 * one (salamander, a 4-port hopping range, QUIC over the relay's UDP path): a provider mixing old
 * and new servers. Each kind is a case (failover/cases.ts), `--trials` trials each: `plain` (the
 * modern servers marked, so A fails over among A1–A4 as it always did), `from-KIND` (Auto on the
 * modern server, the plain ones its way out) and `to-KIND` (Auto on its own plain pick, the modern
 * server its only way out). A core that does not carry a modern server itself (v2ray 4.34: the
 * engine would hand it to sing-box) skips its cases and says so in `skipped`. The reset goals are
 * per failing kind: ≤ 1 s for TCP kinds; a UDP server's reset is an ICMP unreachable that QUIC
 * does not hear, so it is reported apart, against the blackhole's goal (`reset.target.udp`).
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
import { median, option, round } from './harness';
import { blackholeTrial, type FailoverTrial, type HealTrial, healTrial, neighbourTrial, type NeighbourTrial, type OfflineTrial, offlineTrial, resetTrial, type ResetTrial } from './failover/scenarios';
import { TrialKit } from './failover/trial';
import { type FloorSample, measureResetFloor } from './failover/dial-floor';
import { type FailoverWorld, spawnFailoverLab, startWorld } from './failover/world';
import { FAILOVER_KINDS, LAB_KIND_OF, type ModernFailoverKind, casesFor, casesOnCore, lineupFor, parseKinds } from './failover/cases';
import { count, failoverSummary, resetByKind, resetTarget, spentSummary, stats, summarizeBlackhole, summarizeCases, summarizeReset } from './failover/summaries';
import { seeded } from '../../app/testing/random';

const SCENARIOS = ['blackhole', 'reset', 'reset-ws', 'offline', 'neighbour', 'heal'] as const;
type Scenario = (typeof SCENARIOS)[number];

export const failoverBenchmark: Benchmark = {
  name: 'failover',
  description: 'Auto failing over in the lab: blackhole, reset, network offline, whole subscription down (--trials, --trials-offline, --scenarios, --kinds plain,reality,hysteria2, --cores, --seed)',
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

    const kinds = parseKinds(option(args, 'kinds', FAILOVER_KINDS.join(',')));
    const modernKinds = kinds.filter((k): k is ModernFailoverKind => k !== 'plain');
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
    const lab = await spawnFailoverLab(seed, modernKinds.length > 0);
    let world: FailoverWorld | null = null;
    let kit: TrialKit | null = null;
    try {
      // Before the engine starts: these faults are not Auto's to see.
      const floorRounds = option(args, 'floor-rounds', 1);
      if (floorRounds > 0) {
        const modernLabKinds = new Set(modernKinds.map((k) => LAB_KIND_OF[k]));
        const floorServers = lab.info.servers.filter((s) => s.kind === undefined || modernLabKinds.has(s.kind));
        const floor = await measureResetFloor(lab, floorRounds, core, floorServers);
        progress(`reset floor: ${JSON.stringify(floor)}`);
        out.reset_floor = { ...summarizeFloor(floor.samples), skipped: floor.skipped };
      }
      world = await startWorld({ lab, core, modern: modernKinds, monitorIntervalMs: option(args, 'monitor-interval-ms', 3_600_000), verbose: args.includes('--verbose-cores') ? 'cores' : args.includes('--verbose') });
      kit = new TrialKit(world, seeded(seed, 'failover-phase'), option(args, 'pause-before-fault-ms', 0));
      const snapshot = await world.snapshot();
      const settings = snapshot.settings;
      const stallMs = settings.stallThresholdMs;
      const { run: cases, skipped } = casesOnCore(casesFor(kinds), world.notCarried, snapshot.core ? `${snapshot.core.family} ${snapshot.core.version}` : core);
      out.seed = seed;
      out.settings = {
        stall_threshold_ms: stallMs,
        probe_timeout_ms: settings.monitor.urlTestTimeoutMs,
        traffic_request_every_ms: 250,
        traffic_request_timeout_ms: 3000,
        monitor_interval_ms: settings.monitor.intervalMs,
        lab: '12 servers, 3 subscriptions (A, B, C), latency 20–300 ms each way',
        subscription_a: world.lineupServers.map((s) => `${world!.labOf(s.id).id} ${world!.kindOf(s.id)}`),
        kinds,
        cases: cases.map((c) => c.name),
      };
      // Cases left out on this core (blackhole and reset): a modern server it does not carry itself.
      out.skipped = skipped;
      out.setup_s = round((Date.now() - began) / 1000);
      for (const scenario of chosen) {
        const started = Date.now();
        if (scenario === 'blackhole' || scenario === 'reset') {
          const results: FailoverTrial[] = [];
          for (const c of cases) {
            const lineup = lineupFor(c, world.lineupServers);
            for (let i = 0; i < trials; i++) {
              const result = scenario === 'blackhole' ? await blackholeTrial(kit, lineup, c.name) : await resetTrial(kit, 0, lineup, c.name);
              progress(`${scenario} ${c.name} ${i + 1}/${trials}: ${JSON.stringify(result)}`);
              results.push(result);
            }
          }
          out[scenario] =
            scenario === 'blackhole'
              ? { by_case: summarizeCases(results, (mine) => summarizeBlackhole(mine, stallMs)), duration_s: round((Date.now() - started) / 1000) }
              : {
                  by_case: summarizeCases(results as ResetTrial[], (mine) => summarizeReset(mine, stallMs)),
                  // Across cases, by the failing server's kind: what the reset goals are about.
                  by_server_kind: resetByKind(results as ResetTrial[]),
                  target: resetTarget(results as ResetTrial[], stallMs),
                  duration_s: round((Date.now() - started) / 1000),
                };
          continue;
        }
        const n = scenario === 'offline' ? offlineTrials : scenario === 'reset-ws' ? resetWsTrials : scenario === 'heal' ? healTrials : trials;
        const results: unknown[] = [];
        const ws = scenario === 'reset-ws' ? await preferWebSocket(world) : null;
        for (let i = 0; i < n; i++) {
          const result =
            scenario === 'reset-ws' ? await resetTrial(kit, ws!.subscriptionIndex)
            : scenario === 'offline' ? await offlineTrial(kit, offlineMs)
            : scenario === 'heal' ? await healTrial(kit, healMs, stallMs)
            : await neighbourTrial(kit);
          progress(`${scenario} ${i + 1}/${n}: ${JSON.stringify(result)}`);
          results.push(result);
        }
        const summary =
          scenario === 'reset-ws' ? summarizeReset(results as ResetTrial[], stallMs)
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
      // Switches whose tunnel core did not start (a port taken in between on a loaded machine): the app left the connection failed.
      out.tunnel_start_failures = kit.startFailures;
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
