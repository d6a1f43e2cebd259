/**
 * Reachability verdicts at run time (spec/reachability.md): "is the server dead, or is it
 * blocked for me?". The decisions are pure (./policy/plan.ts); this runtime gathers the view they
 * read, carries out the probes they plan, keeps what those probes saw (./store.ts) and what they
 * cost (./budget.ts), and tells listeners and the log what the plan says.
 *
 * - The view from here is the monitor's URL results (`status(id).recent`) plus this runtime's own
 *   confirmation tests from here (`here.probe`, not recorded by the monitor, so they never touch
 *   Auto's scores).
 * - The outside view is chained probes through working servers of other exit networks
 *   (`vantages.reachThrough`; the real one is ./chained-prober.ts).
 * - Every probe has a deadline of its own: one that outlives its timeout by `PROBE_GRACE_MS`
 *   is given up (a dial that ignores its deadline must not hold a server's probing forever).
 * - Nothing is stored as a verdict: `reachability(id)` and `verdict(id)` derive it from fresh
 *   data on every call; one view serves a burst of calls (Auto ordering its queue).
 * - Do no harm: verdicts never remove a server and never switch servers; Auto only sinks
 *   `blocked-here` servers in its queue (`verdict()` is its ReachabilityPort).
 * - Every verdict change and every probe is logged as a `MONITORING` line starting with
 *   `reachability:`, naming the vantage points; `budget()` reports the probes each verdict cost.
 *
 * Usage (the composition root, app/engine/engine.ts):
 *
 *   const vantages = profile
 *     ? new ChainedProber({ core: profile, runtimeDir, logger, url: () => settings.monitor.urls[0] as string, outboundMark: probeMark })
 *     : noVantageProber(noCoreReason);
 *   const networkLoss = new NetworkLossPort(clock);             // Auto is plugged in once built
 *   const reachability = new ReachabilityRuntime({
 *     clock, logger,
 *     servers: () => index.all(),                              // the list the monitor gets
 *     monitor, here: monitor,                                  // results and unrecorded URL tests
 *     vantages,
 *     settings: () => ({ intervalMs: settings.monitor.intervalMs, urlTestTimeoutMs: settings.monitor.urlTestTimeoutMs, trustedCheckerId: settings.trustedCheckerId }),
 *     networkLost: () => networkLoss.reason(),
 *   });
 *   const auto = new AutoRuntime({ …, reachability });          // blocked-here servers sink in its queue
 *   networkLoss.connect(auto);
 *   // every status sent out: { ...status, reachability: reachability.reachability(status.serverId) }
 *   reachability.onChange(({ serverId }) => monitor.restate(serverId));   // with the monitor's next burst of statuses
 *   // server list or settings changed: reachability.refresh();
 *   await monitor.start(); reachability.start(); auto.start();
 *   // stop: auto.stop(); reachability.stop(); … then vantages.stop() when it is a ChainedProber
 */
import type { Server, ServerId } from '../../shared/domain/server';
import type { Reachability, Verdict } from '../../shared/domain/status';
import type { Clock, TimerHandle } from '../clock';
import { listenerErrorsTo, Signal } from '../events';
import type { Logger } from '../log/logger';
import { type ReachabilityBudget, ProbeLedger } from './budget';
import { plan, type PlannedProbe, verdictOf } from './policy/plan';
import type { VantageCandidate } from './policy/planner';
import { type ConfirmationOutcome, confirmationLine, NOTHING_REPORTED, type Reported, vantageProbeLine, type VerdictChange } from './policy/report';
import { type ReachabilityRules, reachabilityRules } from './policy/rules';
import { formatDuration } from './policy/verdict';
import { buildView, type ReachabilityView } from './policy/view';
import type { HereProbePort, MonitorResultsPort, VantageProber, VantageProbeResult } from './ports';
import { ObservationStore } from './store';

export type { VerdictChange } from './policy/report';

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
}

const TAG = 'MONITORING';
/** A probe that outlives its own timeout by this much is given up (a confirmation: not run; a vantage probe: no vote). */
const PROBE_GRACE_MS = 5000;
/** One view serves the calls of one moment (a burst of `verdict()` calls); new data makes a new one. */
const VIEW_REUSE_MS = 1000;

export class ReachabilityRuntime {
  private readonly store = new ObservationStore();
  private readonly ledger = new ProbeLedger();
  private readonly changes: Signal<VerdictChange>;
  private reported: Reported = NOTHING_REPORTED;
  private version = 0;
  private cachedView: { version: number; at: number; view: ReachabilityView } | null = null;
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
    return verdictOf(this.view(), serverId, this.options.clock.now());
  }

  rules(): ReachabilityRules {
    return reachabilityRules(this.options.settings());
  }

  budget(): ReachabilityBudget {
    return this.ledger.report();
  }

  private dataChanged(): void {
    this.version++;
    this.evaluate();
  }

  /** Plans with what is known now and carries the plan out. */
  private evaluate(): void {
    if (!this.running) return;
    const now = this.options.clock.now();
    const rules = this.rules();
    const present = new Set(this.options.servers().map((s) => s.id));
    this.store.prune(present, now, rules);
    this.ledger.prune(present, now, rules.roundIntervalMs);
    const view = this.view();
    const decided = plan({ ...view, active: this.options.monitor.isActive(), probing: this.store.probing(), spent: this.ledger.spent(), reported: this.reported }, now);
    this.reported = decided.reported;
    for (const line of decided.logs) this.log(line);
    for (const entry of decided.budgets) this.ledger.verdict(entry);
    for (const id of decided.episodes.ended) this.ledger.end(id);
    for (const { serverId, firstFailureAt } of decided.episodes.begun) this.ledger.begin(serverId, firstFailureAt);
    for (const probe of decided.probes) this.carryOut(probe, view, rules);
    for (const change of decided.changes) this.changes.emit(change);
    this.wakeAt(decided.wakeAt);
  }

  private carryOut(probe: PlannedProbe, view: ReachabilityView, rules: ReachabilityRules): void {
    if (probe.kind === 'confirm') {
      const server = view.byId.get(probe.serverId);
      if (server) void this.confirm(server, probe.failures, rules);
    } else {
      const target = view.byId.get(probe.targetId);
      if (target) void this.round(target, probe.vantages, view.byId, rules);
    }
  }

  private async confirm(server: Server, failures: number, rules: ReachabilityRules): Promise<void> {
    this.store.confirmationStarted(server.id);
    this.ledger.confirmation(server.id);
    const outcome = await this.withDeadline<ConfirmationOutcome>(
      this.options.here.probe(server.id, rules.confirmTimeoutMs).then(
        (result) => ({ ran: true, delayMs: result.delayMs, at: result.at }),
        (error: unknown) => ({ ran: false, error: error instanceof Error ? error.message : String(error) }),
      ),
      rules.confirmTimeoutMs,
      (ms) => ({ ran: false, error: `no result within ${formatDuration(ms)}` }),
    );
    this.store.confirmationEnded(server.id, outcome.ran ? { at: outcome.at, ok: outcome.delayMs !== null } : null);
    this.log(confirmationLine(server.name, failures, outcome));
    this.dataChanged();
  }

  private async round(target: Server, chosen: readonly VantageCandidate[], byId: ReadonlyMap<ServerId, Server>, rules: ReachabilityRules): Promise<void> {
    this.store.roundStarted(target.id, this.options.clock.now());
    const spend = this.ledger.round(target.id);
    await Promise.all(
      chosen.map(async (candidate) => {
        const vantage = byId.get(candidate.id);
        if (!vantage) return;
        spend.vantageProbe(this.options.clock.now());
        const result = await this.reachThrough(vantage, target, rules.vantageTimeoutMs);
        if (result.inconclusive) spend.inconclusive();
        else {
          const observation = { vantageId: vantage.id, vantageName: vantage.name, network: candidate.network, reached: result.reached, at: this.options.clock.now() };
          this.store.observed(target.id, !result.reached && result.error ? { ...observation, error: result.error } : observation);
        }
        this.log(vantageProbeLine(target.name, candidate, result));
        this.dataChanged();
      }),
    );
    this.store.roundEnded(target.id);
    this.dataChanged();
  }

  /** The port with a guard of our own: a probe that ignores its deadline counts as no vote. */
  private reachThrough(vantage: Server, target: Server, timeoutMs: number): Promise<VantageProbeResult> {
    return this.withDeadline(
      this.options.vantages.reachThrough(vantage, target, timeoutMs).then(
        (result) => result,
        (error: unknown) => ({ reached: false, inconclusive: true, error: `the probe failed to run (${error instanceof Error ? error.message : String(error)})` }),
      ),
      timeoutMs,
      (ms) => ({ reached: false, inconclusive: true, error: `no result within ${formatDuration(ms)}` }),
    );
  }

  /** `promise`, or `late(ms)` once it has taken `timeoutMs` and the grace beyond it. */
  private withDeadline<T>(promise: Promise<T>, timeoutMs: number, late: (ms: number) => T): Promise<T> {
    const ms = timeoutMs + PROBE_GRACE_MS;
    return new Promise((resolve) => {
      const guard = this.options.clock.after(ms, () => resolve(late(ms)));
      void promise.then((value) => {
        guard.cancel();
        resolve(value);
      });
    });
  }

  private log(message: string): void {
    this.options.logger.log('info', TAG, message, this.options.clock.now());
  }

  private view(): ReachabilityView {
    const now = this.options.clock.now();
    const cached = this.cachedView;
    if (cached && cached.version === this.version && Math.abs(now - cached.at) < VIEW_REUSE_MS) return cached.view;
    const settings = this.options.settings();
    const view = buildView(
      {
        servers: this.options.servers(),
        status: (id) => this.options.monitor.observed(id),
        confirmations: (id) => this.store.confirmationsOf(id),
        observations: this.store.vantageObservations(),
        networkLost: this.options.networkLost?.() ?? null,
        unsupported: (vantage, target) => this.options.vantages.unsupported(vantage, target),
        trustedCheckerId: settings.trustedCheckerId,
        rules: this.rules(),
      },
      now,
    );
    this.cachedView = { version: this.version, at: now, view };
    return view;
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
