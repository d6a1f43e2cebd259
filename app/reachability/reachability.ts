/**
 * Reachability verdicts at run time (spec/reachability.md, issue 8): "is the server dead, or is
 * it blocked for me?". The rules are pure (./policy); this runtime gathers the data they read,
 * spends the probes the planner asks for, and tells listeners and the log when a verdict changes.
 *
 * - The view from here is the monitor's URL results (`status(id).recent`) plus this runtime's own
 *   confirmation tests from here (`here.probe`, not recorded by the monitor, so they never touch
 *   Auto's scores).
 * - The outside view is chained probes through working servers of other exit networks
 *   (`vantages.reachThrough`; the real one is ./chained-prober.ts).
 * - Nothing is stored as a verdict: `reachability(id)` and `verdict(id)` derive it from fresh
 *   data on every call; the last derived value is kept only to notice changes.
 * - No probe is spent while the monitor is idle (an idle device is not touched); its data then
 *   ages out and verdicts fall back to `unknown`.
 * - Do no harm: verdicts never remove a server and never switch servers; Auto only sinks
 *   `blocked-here` servers in its queue (`verdict()` is its ReachabilityPort).
 * - Every verdict change and every probe is logged as a `MONITORING` line starting with
 *   `reachability:`, naming the vantage points; `budget()` reports the probes each verdict cost.
 *
 * Usage (the composition root, app/engine/engine.ts):
 *
 *   import { ChainedProber, noVantageProber, ReachabilityRuntime } from '../reachability';
 *   const vantages = profile
 *     ? new ChainedProber({ core: profile, runtimeDir, logger, url: () => settings.monitor.urls[0] as string })
 *     : noVantageProber(noCoreReason);
 *   const reachability = new ReachabilityRuntime({
 *     clock, logger,
 *     servers: () => index.all(),                     // the list the monitor gets
 *     monitor,                                         // MonitorResultsPort: subscribe, status, isActive
 *     here: monitor,                                   // HereProbePort: Monitor.probe (not recorded)
 *     vantages,
 *     settings: () => ({ intervalMs: settings.monitor.intervalMs, urlTestTimeoutMs: settings.monitor.urlTestTimeoutMs, trustedCheckerId: settings.trustedCheckerId }),
 *     networkLost: () => networkLoss.reason(),       // Auto's view, through the engine's NetworkLossPort
 *   });
 *   const auto = new AutoRuntime({ …, reachability });          // blocked-here servers sink in its queue
 *   networkLoss.connect(auto);
 *   reachability.start();                                        // after monitor.start()
 *   // ServerStatus.reachability: { ...monitor.status(id), reachability: reachability.reachability(id) }
 *   reachability.onChange(({ serverId }) => verdicts.note(serverId));   // VerdictBatcher: one message per burst
 *   // settings or server list changed: reachability.refresh();  quit: reachability.stop(); await vantages.stop?.();
 */
import type { Measurement } from '../../shared/domain/measurement';
import type { Server, ServerId } from '../../shared/domain/server';
import type { Reachability, ServerStatus, Verdict } from '../../shared/domain/status';
import type { Clock, TimerHandle } from '../clock';
import type { Logger } from '../log/logger';
import { type ExitNetwork, exitNetworkOf } from './policy/exit-network';
import { assessNetwork, failureStreak, type HereResult, type NetworkAssessment, type Streak } from './policy/here';
import { chooseVantages, planConfirmation, planRound, type VantageCandidate } from './policy/planner';
import { type ReachabilityRules, reachabilityRules } from './policy/rules';
import { deriveVerdict, formatDuration, type VantageObservation } from './policy/verdict';
import { assessVantages, keptObservations } from './policy/witness';
import type { HereProbePort, MonitorResultsPort, VantageProber, VantageProbeResult } from './ports';
import { listenerErrorsTo, Signal } from '../events';

export interface ReachabilitySettings {
  intervalMs: number;
  urlTestTimeoutMs: number;
  trustedCheckerId: ServerId | null;
}

export interface ReachabilityOptions {
  clock: Clock;
  logger: Logger;
  /** The server list, in subscription order (the monitor's). */
  servers: () => readonly Server[];
  monitor: MonitorResultsPort;
  here: HereProbePort;
  vantages: VantageProber;
  settings: () => ReachabilitySettings;
  /** A signal from elsewhere that the user's network is lost (a sentence), or null. */
  networkLost?: () => string | null;
  /** Overrides of the derived rules (tests). */
  rules?: Partial<ReachabilityRules>;
}

export interface VerdictChange {
  serverId: ServerId;
  previous: Reachability | null;
  current: Reachability;
}

/** What one verdict cost, counted from the first failure of its streak. */
export interface VerdictBudget {
  serverId: ServerId;
  name: string;
  verdict: Verdict;
  at: number;
  /** Chained probes through vantage points (conclusive or not). */
  vantageProbes: number;
  /** Of those, probes whose vantage point itself failed (not votes). */
  inconclusiveProbes: number;
  rounds: number;
  /** Confirmation tests from here. */
  confirmations: number;
  /** From the streak's first failure to this verdict. */
  sinceFirstFailureMs: number;
}

export interface ReachabilityBudget {
  vantageProbes: number;
  inconclusiveProbes: number;
  rounds: number;
  confirmations: number;
  /** Every logged verdict change of a server that was failing, oldest first (the last 200). */
  verdicts: VerdictBudget[];
}

interface Episode {
  firstFailureAt: number;
  vantageProbes: number;
  inconclusiveProbes: number;
  rounds: number;
  confirmations: number;
}

interface View {
  version: number;
  at: number;
  servers: readonly Server[];
  byId: Map<ServerId, Server>;
  statuses: Map<ServerId, ServerStatus>;
  here: Map<ServerId, HereResult[]>;
  network: NetworkAssessment;
  /** Vantage points that suddenly cannot see half or more of what they could (witness.ts), with why. */
  unreliableVantages: Map<ServerId, string>;
  /** Every server as a vantage candidate, in preference order; built when first needed. */
  candidates: VantageCandidate[] | null;
}

const TAG = 'MONITORING';
const KEEP_CONFIRMATIONS = 5;
const KEEP_BUDGETS = 200;
/** A vantage probe that outlives its own timeout by this much is given up (inconclusive). */
const PROBE_GRACE_MS = 5000;

export class ReachabilityRuntime {
  private readonly confirmations = new Map<ServerId, HereResult[]>();
  private readonly observations = new Map<ServerId, VantageObservation[]>();
  private readonly lastRoundAt = new Map<ServerId, number>();
  private readonly roundsInFlight = new Set<ServerId>();
  private readonly confirmsInFlight = new Set<ServerId>();
  private readonly episodes = new Map<ServerId, Episode>();
  /** The last derived value, only to notice changes (never read as a verdict). */
  private readonly shown = new Map<ServerId, Reachability>();
  private readonly logged = new Map<ServerId, { reachability: Reachability; quiet: boolean }>();
  private readonly changes: Signal<VerdictChange>;
  private readonly totals = { vantageProbes: 0, inconclusiveProbes: 0, rounds: 0, confirmations: 0 };
  private readonly budgets: VerdictBudget[] = [];
  private probeTimes: number[] = [];
  private version = 0;
  private cachedView: View | null = null;
  private networkWasLost: string | null = null;
  private timer: TimerHandle | null = null;
  private timerAt = Number.POSITIVE_INFINITY;
  private unsubscribe: (() => void) | null = null;
  private running = false;

  constructor(private readonly options: ReachabilityOptions) {
    this.changes = new Signal('verdict', listenerErrorsTo(options.logger, TAG));
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.unsubscribe = this.options.monitor.subscribe(() => this.dataChanged());
    this.evaluate();
  }

  stop(): void {
    this.running = false;
    this.unsubscribe?.();
    this.unsubscribe = null;
    this.timer?.cancel();
    this.timer = null;
    this.timerAt = Number.POSITIVE_INFINITY;
  }

  /** Re-derive everything now (the server list, the settings or the monitor's activity changed). */
  refresh(): void {
    this.dataChanged();
  }

  onChange(listener: (change: VerdictChange) => void): () => void {
    return this.changes.on(listener);
  }

  /** The verdict, derived now (Auto's ReachabilityPort); null for a server not in the list. */
  verdict(serverId: ServerId): Verdict | null {
    return this.reachability(serverId)?.verdict ?? null;
  }

  /** The verdict with its reason and vantage points, derived now (ServerStatus.reachability). */
  reachability(serverId: ServerId): Reachability | null {
    const view = this.view();
    const server = view.byId.get(serverId);
    if (!server) return null;
    return this.derive(server, view, this.options.clock.now());
  }

  rules(): ReachabilityRules {
    return reachabilityRules(this.options.settings(), this.options.rules);
  }

  budget(): ReachabilityBudget {
    return { ...this.totals, verdicts: this.budgets.map((b) => ({ ...b })) };
  }

  // ——— evaluation ———

  private dataChanged(): void {
    this.version++;
    this.evaluate();
  }

  /** Derives every verdict, reports changes, and spends the probes the planner asks for. */
  private evaluate(): void {
    if (!this.running) return;
    const now = this.options.clock.now();
    const servers = this.options.servers();
    this.prune(servers, now);
    const view = this.view();
    this.reportNetwork(view.network);
    let wakeAt = Number.POSITIVE_INFINITY;
    for (const server of servers) {
      const streak = failureStreak(view.here.get(server.id) ?? [], now, this.rules());
      const current = this.derive(server, view, now);
      this.noteChange(server, current, streak, view, now);
      wakeAt = Math.min(wakeAt, this.spend(server, streak, servers, view, now));
    }
    wakeAt = Math.min(wakeAt, this.nextExpiry(view, now));
    this.wakeAt(wakeAt);
  }

  private derive(server: Server, view: View, now: number): Reachability {
    const rules = this.rules();
    const trustedCheckerId = this.options.settings().trustedCheckerId;
    const here = view.here.get(server.id) ?? [];
    // Who could be asked matters only to explain a missing quorum: worked out only then (it
    // looks at every other server).
    const streak = failureStreak(here, now, rules);
    const needsOutside = streak.counts && !view.network.lost;
    const problem = needsOutside ? chooseVantages(this.targetOf(server, view), this.candidates(view, now), trustedCheckerId, rules, this.unsupportedFor(server, view)).problem : null;
    return deriveVerdict(
      {
        target: { id: server.id, name: server.name },
        here,
        vantages: this.observations.get(server.id) ?? [],
        network: view.network,
        trustedCheckerId,
        outsideProblem: problem,
        rules,
        unreliableVantages: view.unreliableVantages,
      },
      now,
    );
  }

  /** Confirmations and rounds for one server; returns when it next needs a look. */
  private spend(server: Server, streak: Streak, servers: readonly Server[], view: View, now: number): number {
    const rules = this.rules();
    // An idle device never has its servers touched: no confirmations, no rounds (spec/monitor.md).
    if (!this.options.monitor.isActive()) return Number.POSITIVE_INFINITY;
    if (streak.failures > 0 && !this.episodes.has(server.id)) {
      this.episodes.set(server.id, { firstFailureAt: streak.firstAt as number, vantageProbes: 0, inconclusiveProbes: 0, rounds: 0, confirmations: 0 });
    }
    let wake = Number.POSITIVE_INFINITY;
    const confirm = planConfirmation(streak, view.network, this.confirmsInFlight.has(server.id), rules, now);
    if (confirm.kind === 'now') void this.confirm(server, streak.failures, rules);
    else if (confirm.kind === 'at') wake = confirm.at;

    const mayAsk = streak.latest !== null && !streak.latest.ok && streak.failures >= rules.vantageAfterFailures && !view.network.lost;
    const plan = planRound(
      {
        target: this.targetOf(server, view),
        streak,
        network: view.network,
        candidates: mayAsk ? this.candidates(view, now) : [],
        unsupported: this.unsupportedFor(server, view),
        trustedCheckerId: this.options.settings().trustedCheckerId,
        lastRoundAt: this.lastRoundAt.get(server.id) ?? null,
        roundInFlight: this.roundsInFlight.has(server.id),
        probeTimes: this.probeTimes,
        rules,
      },
      now,
    );
    if (plan.kind === 'probe') {
      void this.round(server, plan.vantages, `${plan.why}${plan.problem ? `; ${plan.problem}` : ''}`, streak.failures, view.byId, rules);
    } else if (plan.kind === 'wait') {
      wake = Math.min(wake, plan.until);
    } else if (plan.kind === 'confirm-first' && !this.confirmsInFlight.has(server.id)) {
      void this.confirm(server, streak.failures, rules);
    }
    return wake;
  }

  private async confirm(server: Server, failures: number, rules: ReachabilityRules): Promise<void> {
    this.confirmsInFlight.add(server.id);
    this.totals.confirmations++;
    const episode = this.episodes.get(server.id);
    if (episode) episode.confirmations++;
    let line: string;
    try {
      const result = await this.options.here.probe(server.id, rules.confirmTimeoutMs);
      const list = [...(this.confirmations.get(server.id) ?? []), { at: result.at, ok: result.delayMs !== null }];
      this.confirmations.set(server.id, list.slice(-KEEP_CONFIRMATIONS));
      line = result.delayMs !== null ? `answered in ${result.delayMs} ms` : 'no answer';
    } catch (error) {
      line = `the test could not run (${error instanceof Error ? error.message : String(error)})`;
    }
    this.log(`reachability: ${server.name} re-tested from here after ${failures} failure(s) in a row: ${line}`);
    this.confirmsInFlight.delete(server.id);
    this.dataChanged();
  }

  private async round(target: Server, chosen: VantageCandidate[], why: string, failures: number, byId: Map<ServerId, Server>, rules: ReachabilityRules): Promise<void> {
    const startedAt = this.options.clock.now();
    this.lastRoundAt.set(target.id, startedAt);
    this.roundsInFlight.add(target.id);
    this.totals.rounds++;
    const episode = this.episodes.get(target.id);
    if (episode) episode.rounds++;
    this.log(`reachability: ${target.name} keeps failing from here (${failures} in a row): asking ${chosen.map((c) => `${c.name} (${c.network.label})`).join(', ')} (${why})`);
    await Promise.all(
      chosen.map(async (candidate) => {
        const vantage = byId.get(candidate.id);
        if (!vantage) return;
        this.probeTimes.push(this.options.clock.now());
        this.totals.vantageProbes++;
        if (episode) episode.vantageProbes++;
        const result = await this.reachThrough(vantage, target, rules.vantageTimeoutMs);
        this.recordProbe(target, candidate.network, vantage, result, episode);
        this.dataChanged();
      }),
    );
    this.roundsInFlight.delete(target.id);
    this.dataChanged();
  }

  private recordProbe(target: Server, network: ExitNetwork, vantage: Server, result: VantageProbeResult, episode: Episode | undefined): void {
    const through = `${vantage.name} (${network.label})`;
    if (result.inconclusive) {
      this.totals.inconclusiveProbes++;
      if (episode) episode.inconclusiveProbes++;
      this.log(`reachability: probe of ${target.name} through ${through}: no vote (${result.error ?? 'inconclusive'})`);
      return;
    }
    const observation: VantageObservation = { vantageId: vantage.id, vantageName: vantage.name, network, reached: result.reached, at: this.options.clock.now() };
    if (!result.reached && result.error) observation.error = result.error;
    this.observations.set(target.id, [...(this.observations.get(target.id) ?? []), observation]);
    this.log(
      `reachability: probe of ${target.name} through ${through}: ${result.reached ? `reached${result.delayMs !== undefined ? ` in ${Math.round(result.delayMs)} ms` : ''}` : `not reached (${result.error ?? 'no answer'}): a statement about the path between ${vantage.name} and ${target.name}`}`,
    );
  }

  /** The port with a guard of our own: a probe that ignores its deadline counts as no vote. */
  private reachThrough(vantage: Server, target: Server, timeoutMs: number): Promise<VantageProbeResult> {
    const { clock } = this.options;
    return new Promise((resolve) => {
      const guard = clock.after(timeoutMs + PROBE_GRACE_MS, () => resolve({ reached: false, inconclusive: true, error: `no result within ${formatDuration(timeoutMs + PROBE_GRACE_MS)}` }));
      this.options.vantages.reachThrough(vantage, target, timeoutMs).then(
        (result) => {
          guard.cancel();
          resolve(result);
        },
        (error: unknown) => {
          guard.cancel();
          resolve({ reached: false, inconclusive: true, error: `the probe failed to run (${error instanceof Error ? error.message : String(error)})` });
        },
      );
    });
  }

  // ——— reporting ———

  /**
   * Listeners hear every change of verdict, reason or vantage points at once. The log gets a line
   * when the verdict or its vantage points differ from the last line, once the votes of a round
   * in flight are all in (not one line per arriving vote).
   */
  private noteChange(server: Server, current: Reachability, streak: Streak, view: View, now: number): void {
    const previous = this.shown.get(server.id) ?? null;
    // ok, and unknown for lack of data or while the network is lost, are not worth a line per server.
    const isQuiet = current.verdict === 'ok' || (current.verdict === 'unknown' && current.vantagePoints.length === 0 && (view.network.lost || !streak.latest));
    if (!this.roundsInFlight.has(server.id)) {
      const logged = this.logged.get(server.id);
      if (!logged || logged.reachability.verdict !== current.verdict || !sameVantages(logged.reachability, current)) {
        if (!((logged?.quiet ?? true) && isQuiet)) {
          const episode = this.episodes.get(server.id);
          const cost = episode ? this.recordBudget(server, current.verdict, episode, now) : '';
          this.log(`reachability: ${server.name} is ${describeVerdict(current.verdict)}: ${current.reason}${cost}`);
        }
        this.logged.set(server.id, { reachability: current, quiet: isQuiet });
      }
    }
    if (!streak.latest || current.verdict === 'ok') this.episodes.delete(server.id);
    const changed = !previous || previous.verdict !== current.verdict || previous.reason !== current.reason || !sameVantages(previous, current);
    if (!changed) return;
    this.shown.set(server.id, current);
    this.changes.emit({ serverId: server.id, previous, current });
  }

  private recordBudget(server: Server, verdict: Verdict, episode: Episode, now: number): string {
    const entry: VerdictBudget = {
      serverId: server.id,
      name: server.name,
      verdict,
      at: now,
      vantageProbes: episode.vantageProbes,
      inconclusiveProbes: episode.inconclusiveProbes,
      rounds: episode.rounds,
      confirmations: episode.confirmations,
      sinceFirstFailureMs: now - episode.firstFailureAt,
    };
    this.budgets.push(entry);
    if (this.budgets.length > KEEP_BUDGETS) this.budgets.shift();
    return ` [spent: ${entry.vantageProbes} vantage probe(s) in ${entry.rounds} round(s), ${entry.confirmations} confirmation(s) from here, ${formatDuration(entry.sinceFirstFailureMs)} since the first failure]`;
  }

  /** The network-lost state is logged once when it begins and once when it ends, not per server. */
  private reportNetwork(network: NetworkAssessment): void {
    const now = network.lost ? (network.reason ?? 'your network looks down') : null;
    if (now === this.networkWasLost) return;
    if (now) this.log(`reachability: ${now}: no server is blamed while it lasts`);
    else this.log('reachability: your network answers again: verdicts are derived as usual');
    this.networkWasLost = now;
  }

  private log(message: string): void {
    this.options.logger.log('info', TAG, message, this.options.clock.now());
  }

  // ——— data ———

  private view(): View {
    const now = this.options.clock.now();
    const cached = this.cachedView;
    // Derived per call, but one pass over every server's results serves a whole burst of calls
    // (Auto ordering a queue asks for each server's verdict at the same moment).
    if (cached && cached.version === this.version && Math.abs(now - cached.at) < 1000) return cached;
    const servers = this.options.servers();
    const statuses = new Map<ServerId, ServerStatus>();
    const here = new Map<ServerId, HereResult[]>();
    for (const server of servers) {
      const status = this.options.monitor.status(server.id);
      statuses.set(server.id, status);
      here.set(server.id, [...urlResults(status.recent), ...(this.confirmations.get(server.id) ?? [])]);
    }
    const network = assessNetwork(here, now, this.rules(), this.options.networkLost?.() ?? null);
    const unreliableVantages = assessVantages(this.observations, now, this.rules());
    const view: View = { version: this.version, at: now, servers, byId: new Map(servers.map((s) => [s.id, s])), statuses, here, network, unreliableVantages, candidates: null };
    this.cachedView = view;
    return view;
  }

  private targetOf(server: Server, view: View): { id: ServerId; name: string; network: ExitNetwork } {
    return { id: server.id, name: server.name, network: exitNetworkOf(view.statuses.get(server.id)?.ipInfo, server.address) };
  }

  private candidates(view: View, now: number): VantageCandidate[] {
    const rules = this.rules();
    view.candidates ??= view.servers
      .map((server, index) => {
        const status = view.statuses.get(server.id);
        return { id: server.id, name: server.name, network: exitNetworkOf(status?.ipInfo, server.address), workingDelayMs: workingDelay(status, now, rules), index };
      })
      // Pre-sorted the planner's way (ASN-known networks, then speed) so its sort has nothing to do.
      .sort((a, b) => rankOf(a.network) - rankOf(b.network) || (a.workingDelayMs ?? Infinity) - (b.workingDelayMs ?? Infinity) || a.index - b.index);
    return view.candidates;
  }

  /** Why the core cannot dial `target` through `candidate`. */
  private unsupportedFor(target: Server, view: View): (candidate: VantageCandidate) => string | null {
    return (candidate) => {
      const vantage = view.byId.get(candidate.id);
      return vantage ? this.options.vantages.unsupported(vantage, target) : 'not in the server list';
    };
  }

  private prune(servers: readonly Server[], now: number): void {
    const present = new Set(servers.map((s) => s.id));
    for (const map of [this.confirmations, this.observations, this.lastRoundAt, this.episodes, this.shown, this.logged] as Map<ServerId, unknown>[]) {
      for (const id of map.keys()) if (!present.has(id)) map.delete(id);
    }
    for (const [id, list] of this.observations) {
      const kept = keptObservations(list, now, this.rules());
      if (kept.length === 0) this.observations.delete(id);
      else this.observations.set(id, kept);
    }
    this.probeTimes = this.probeTimes.filter((t) => now - t <= this.rules().roundIntervalMs);
  }

  /** When the oldest fresh piece of data goes stale (a verdict may change then without any new data). */
  private nextExpiry(view: View, now: number): number {
    const freshness = this.rules().freshnessMs;
    let next = Number.POSITIVE_INFINITY;
    const consider = (at: number) => {
      const expires = at + freshness + 1;
      if (expires > now && expires < next) next = expires;
    };
    for (const results of view.here.values()) {
      const latest = results.reduce((max, r) => Math.max(max, r.at), Number.NEGATIVE_INFINITY);
      if (Number.isFinite(latest)) consider(latest);
      // The start of a failure streak ageing out shortens it.
      for (const r of results) if (!r.ok) consider(r.at);
    }
    for (const list of this.observations.values()) for (const o of list) consider(o.at);
    return next;
  }

  private wakeAt(at: number): void {
    if (!Number.isFinite(at)) return;
    if (this.timer && this.timerAt <= at) return;
    this.timer?.cancel();
    this.timerAt = at;
    this.timer = this.options.clock.after(Math.max(0, at - this.options.clock.now()), () => {
      this.timer = null;
      this.timerAt = Number.POSITIVE_INFINITY;
      this.dataChanged();
    });
  }
}

function rankOf(network: ExitNetwork): number {
  return network.kind === 'asn' ? 0 : network.kind === 'prefix' ? 1 : 2;
}

function urlResults(recent: readonly Measurement[]): HereResult[] {
  return recent.filter((m) => m.method === 'url').map((m) => ({ at: m.at, ok: m.delayMs !== null }));
}

/** The delay of the latest fresh URL result from here when it answered, else null. */
function workingDelay(status: ServerStatus | undefined, now: number, rules: ReachabilityRules): number | null {
  if (!status) return null;
  const latest = status.recent.filter((m) => m.method === 'url' && m.at <= now).reduce<Measurement | null>((a, m) => (!a || m.at >= a.at ? m : a), null);
  if (!latest || latest.delayMs === null || now - latest.at > rules.freshnessMs) return null;
  return latest.delayMs;
}

function sameVantages(a: Reachability | null, b: Reachability): boolean {
  if (!a || a.vantagePoints.length !== b.vantagePoints.length) return false;
  return a.vantagePoints.every((v, i) => v.serverId === b.vantagePoints[i]?.serverId && v.reached === b.vantagePoints[i]?.reached);
}

function describeVerdict(verdict: Verdict): string {
  switch (verdict) {
    case 'ok':
      return 'ok';
    case 'failing':
      return 'failing';
    case 'down':
      return 'down';
    case 'blocked-here':
      return 'blocked here';
    case 'blocked':
      return 'address blocked';
    case 'unknown':
      return 'unknown';
  }
}
