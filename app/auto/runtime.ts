/**
 * Runs Auto's reducer (policy/step.ts) against the real world: feeds it events, carries out its
 * commands, keeps the timeline the UI draws and logs every decision as an `AUTO` line.
 *
 * - Probes of one check run in parallel; each result is fed back as it comes. A probe that
 *   outlives its timeout by `probeGraceMs` counts as unanswered (a dial that ignores its deadline
 *   must not hold a check forever).
 * - One timer: the reducer says when it next needs to look (`wake`), the runtime keeps only that.
 * - Events are processed one at a time, in order, even when a command's effect raises a new one.
 * - What must survive a restart (marks, return candidate, Auto's subscription) is saved whenever
 *   it changes.
 */
import type { AutoDecision, AutoSnapshot, TimelineEntry } from '../../shared/domain/auto';
import type { TrafficSample } from '../../shared/domain/connection';
import type { ProbeFailure } from '../../shared/domain/measurement';
import type { RefusalCode } from '../../shared/domain/refusal';
import type { ServerId, SubscriptionId } from '../../shared/domain/server';
import type { Settings } from '../../shared/settings';
import type { Clock, TimerHandle } from '../clock';
import type { Logger } from '../log/logger';
import { describeDecision } from './describe';
import type { AutoConfig } from './policy/constants';
import { homeOf, initialState, NOTHING_PERSISTED, type PersistedAutoState, persistedOf, queueOf } from './policy/state';
import { step } from './policy/step';
import type { AutoCommand, AutoEvent, AutoState } from './policy/types';
import type { AutoWorld } from './policy/world';
import type { AutoProbePort, AutoProbeResult, AutoStatePort, MeasurementPort, ReachabilityPort, SubscriptionsPort, TunnelPort } from './ports';
import { listenerErrorsTo, Signal } from '../events';
import { NetworkLook } from './network-look';

export interface AutoRuntimeOptions {
  clock: Clock;
  logger: Logger;
  config: AutoConfig;
  probe: AutoProbePort;
  measurements: MeasurementPort;
  tunnel: TunnelPort;
  subscriptions: SubscriptionsPort;
  reachability?: ReachabilityPort;
  store?: AutoStatePort;
  /** What was saved last run. */
  persisted?: PersistedAutoState;
  /** Timeline entries kept for the UI (oldest dropped first). */
  timelineLimit?: number;
  /** How long past its timeout a probe may take before it counts as unanswered. */
  probeGraceMs?: number;
  /** Marks of a list this runtime does not own, honoured as its own (a group's: the servers' own subscriptions' marks). */
  markedElsewhere?: (serverId: ServerId) => boolean;
}

/** Auto's settings from the app's: the stall threshold and the monitor's URL-test timeout. */
export function autoConfigFrom(settings: Settings): AutoConfig {
  return { stallThresholdMs: settings.stallThresholdMs, probeTimeoutMs: settings.monitor.urlTestTimeoutMs };
}

/** A request's outcome; a refusal carries its code when the policy named one (see shared/domain/refusal.ts). */
export type Outcome = { ok: true } | { ok: false; error: string; code?: RefusalCode };

export class AutoRuntime {
  private state: AutoState;
  private readonly world: AutoWorld;
  private readonly timeline: TimelineEntry[] = [];
  private readonly changes: Signal<AutoSnapshot>;
  private readonly decisions: Signal<AutoDecision>;
  private readonly queue: AutoEvent[] = [];
  private draining = false;
  private timer: TimerHandle | null = null;
  private stopped = false;
  /** What the window says of the network before Auto's own verdict can (policy/network-look.ts). */
  private readonly look: NetworkLook;

  constructor(private readonly options: AutoRuntimeOptions) {
    this.changes = new Signal('auto', listenerErrorsTo(options.logger, 'AUTO'));
    this.decisions = new Signal('decision', listenerErrorsTo(options.logger, 'AUTO'));
    const { measurements, subscriptions, reachability } = options;
    this.world = {
      subscriptions: () => subscriptions.list(),
      measurements: (id) => measurements.measurements(id),
      fromCache: (id) => measurements.fromCache(id),
      throughputBps: (id) => measurements.throughputBps(id),
      verdict: (id) => reachability?.verdict(id) ?? null,
      transferVerdict: (id) => measurements.transferVerdict?.(id) ?? null,
      transferResult: (id) => measurements.transferResult?.(id) ?? null,
      ...(options.markedElsewhere ? { markedElsewhere: options.markedElsewhere } : {}),
    };
    this.state = initialState(options.config, options.persisted ?? NOTHING_PERSISTED, options.clock.now());
    this.state = { ...this.state, current: options.tunnel.current() };
    this.look = new NetworkLook({
      clock: options.clock,
      logger: options.logger,
      probe: options.probe,
      world: this.world,
      current: () => this.state.current,
      stallThresholdMs: () => this.state.config.stallThresholdMs,
      changed: () => this.notifyChange(),
    });
  }

  /** Picks up the tunnel as it is now (call once after wiring). */
  start(): void {
    const current = this.options.tunnel.current();
    if (this.options.tunnel.connected() && current !== null) this.tunnelConnected(current);
  }

  stop(): void {
    this.stopped = true;
    this.timer?.cancel();
    this.timer = null;
  }

  traffic(sample: TrafficSample): void {
    this.dispatch({ type: 'traffic', sample });
    if (!this.stopped) this.look.traffic(sample);
  }
  /**
   * The core failed to connect to a server; `kind` says how, when the core said. `of:
   * 'destination'`: it reached the server, and a destination through it failed on its own.
   */
  dialFailure(serverId: ServerId, kind?: ProbeFailure, of?: 'destination'): void {
    this.dispatch({ type: 'dial-failure', serverId, ...(kind ? { kind } : {}), ...(of ? { of } : {}) });
  }
  /** The OS reported a network change: 'none' (no network at all) or 'up' (a network, possibly another one). */
  networkChanged(state: 'none' | 'up'): void {
    this.dispatch({ type: 'network', state });
    if (!this.stopped) this.look.networkChanged(state);
  }
  subscriptionsUpdated(): void {
    this.dispatch({ type: 'subscriptions-updated' });
  }
  tunnelConnected(serverId: ServerId): void {
    const moved = !this.state.connected || this.state.current !== serverId;
    this.dispatch({ type: 'tunnel-connected', serverId });
    if (!this.stopped && moved) this.look.tunnel(true);
  }
  /**
   * A transfer test of the server ended (the monitor's, or one Auto asked for): its latest result
   * is read from the measurements and given to the reducer (the current server's freeze is a trigger).
   */
  transferSeen(serverId: ServerId): void {
    const result = this.options.measurements.transferResult?.(serverId) ?? null;
    if (result) this.dispatch({ type: 'transfer-seen', serverId, result });
  }
  /** Only a real disconnect (the user's, or the core gone for good), not a reconnect in progress. */
  tunnelDisconnected(): void {
    this.dispatch({ type: 'tunnel-disconnected' });
    if (!this.stopped) this.look.tunnel(false);
  }

  /** Turns Auto on for one subscription (off for any other), or off with null. */
  setAuto(subscriptionId: SubscriptionId | null): Outcome {
    return this.dispatch({ type: 'set-auto', subscriptionId });
  }
  /** The user's marks for a subscription after "Done"; refused when it would mark the last unmarked server. */
  setExcluded(subscriptionId: SubscriptionId, ids: ServerId[]): Outcome {
    return this.dispatch({ type: 'set-excluded', subscriptionId, ids });
  }
  /** The marks `markedElsewhere` reads changed: a current server marked there is left. */
  marksChanged(): void {
    this.dispatch({ type: 'marks-changed' });
  }
  /** The user picked a server by hand: Auto turns off and the tunnel moves there. */
  manualConnect(serverId: ServerId): void {
    this.dispatch({ type: 'manual-connect', serverId });
  }
  /** New settings (stall threshold, probe timeout): an event to the reducer, logged, holding from the next sample and check. */
  reconfigure(config: AutoConfig): void {
    this.dispatch({ type: 'configure', config });
  }

  /** A check now, whatever the cooldowns say. */
  checkNow(): void {
    this.dispatch({ type: 'check-now' });
  }

  snapshot(): AutoSnapshot {
    const s = this.state;
    return {
      subscriptionId: s.subscriptionId,
      excluded: s.excluded,
      returnCandidate: s.returnCandidate,
      networkLostUntil: s.networkLoss && s.networkLoss.until > this.options.clock.now() ? s.networkLoss.until : null,
      networkSilentSince: this.look.silentSince(),
      timeline: [...this.timeline],
    };
  }

  /** The user's marks per subscription, as they stand (the same record until they change). */
  excluded(): Readonly<Record<SubscriptionId, readonly ServerId[]>> {
    return this.state.excluded;
  }

  /**
   * The servers of the current server's subscription (else Auto's) in queue order, marked ones
   * left out: the monitor gives the first few its transfer tests, the candidates Auto moves to.
   */
  candidateQueue(): ServerId[] {
    const ctx = { now: this.options.clock.now(), world: this.world, out: [] };
    return queueOf(this.state, ctx, homeOf(this.state, ctx));
  }

  onChange(listener: (snapshot: AutoSnapshot) => void): () => void {
    return this.changes.on(listener);
  }

  /** Every decision as it is made (the simulator prints these). */
  onDecision(listener: (decision: AutoDecision) => void): () => void {
    return this.decisions.on(listener);
  }

  private dispatch(event: AutoEvent): Outcome {
    if (this.stopped) return { ok: false, error: 'Auto is stopped.' };
    this.queue.push(event);
    if (this.draining) return { ok: true };
    this.draining = true;
    let outcome: Outcome = { ok: true };
    let changed = false;
    try {
      for (let e = this.queue.shift(); e; e = this.queue.shift()) {
        const before = this.state;
        this.carrying = before.connected ? before.current : null;
        const { state, commands } = step(before, e, this.options.clock.now(), this.world);
        this.state = state;
        for (const command of commands) {
          const refused = this.execute(command);
          if (refused && e === event) outcome = { ok: false, ...refused };
          if (command.kind === 'emit') changed = true;
        }
        this.persistIfChanged(before, state);
      }
    } finally {
      this.draining = false;
    }
    if (changed) this.notifyChange();
    return outcome;
  }

  /** The server carrying traffic as the current step's commands are carried out (for the timeline). */
  private carrying: ServerId | null = null;

  /** Carries out one command; returns a refusal's reason and code. */
  private execute(command: AutoCommand): { error: string; code: RefusalCode } | null {
    switch (command.kind) {
      case 'log':
        this.logDecision(command.decision);
        return null;
      case 'record':
        for (const { serverId, measurement } of command.results) this.options.measurements.record(serverId, measurement);
        return null;
      case 'probe':
        for (const id of command.ids) void this.runProbe(command.checkId, id, command.timeoutMs, command.transferAfter?.includes(id) ?? false);
        return null;
      case 'event-test':
        this.options.probe.eventTest(command.serverId);
        return null;
      case 'transfer-test':
        void this.watchTest(command.serverId);
        return null;
      case 'connect':
        if (this.state.connected) this.carrying = command.serverId;
        this.options.tunnel.switchTo(command.serverId).catch(() => this.dialFailure(command.serverId));
        return null;
      case 'wake':
        this.timer?.cancel();
        this.timer = null;
        if (command.at !== null) {
          const at = command.at;
          this.timer = this.options.clock.after(at - this.options.clock.now(), () => {
            this.timer = null;
            this.dispatch({ type: 'wake' });
          });
        }
        return null;
      case 'refuse':
        return { error: command.reason, code: command.code };
      case 'emit':
        return null;
    }
  }

  private async runProbe(checkId: number, serverId: ServerId, timeoutMs: number, transferAfter: boolean): Promise<void> {
    const grace = this.options.probeGraceMs ?? 1000;
    const guard: { deadline: TimerHandle | null } = { deadline: null };
    const overdue = new Promise<AutoProbeResult>((resolve) => {
      guard.deadline = this.options.clock.after(timeoutMs + grace, () => resolve({ delayMs: null, error: 'timeout' }));
    });
    let result: AutoProbeResult;
    try {
      result = await Promise.race([this.options.probe.probe(serverId, timeoutMs), overdue]);
    } catch {
      result = { delayMs: null, error: 'unknown' };
    } finally {
      guard.deadline?.cancel();
    }
    this.dispatch({ type: 'probe-result', checkId, serverId, delayMs: result.delayMs, ...(result.error ? { error: result.error } : {}) });
    if (result.delayMs !== null && !this.stopped) this.look.answered();
    if (transferAfter && result.delayMs !== null) {
      const verdict = await (this.options.probe.transferTest?.(serverId) ?? Promise.resolve(null)).catch(() => null);
      this.dispatch({ type: 'transfer-result', checkId, serverId, verdict });
      this.transferSeen(serverId);
    }
  }

  /** The watch's transfer test of the current server: its result goes to the reducer, then the watch may go on. */
  private async watchTest(serverId: ServerId): Promise<void> {
    await (this.options.probe.transferTest?.(serverId) ?? Promise.resolve(null)).catch(() => null);
    this.transferSeen(serverId);
    this.dispatch({ type: 'watch-ended', serverId });
  }

  private logDecision(decision: AutoDecision): void {
    const entry: TimelineEntry = { ...decision, carrying: this.carrying };
    this.timeline.push(entry);
    const limit = this.options.timelineLimit ?? 2000;
    if (this.timeline.length > limit) this.timeline.splice(0, this.timeline.length - limit);
    this.options.logger.log('info', 'AUTO', describeDecision(decision), decision.at);
    this.decisions.emit(decision);
  }

  private persistIfChanged(before: AutoState, after: AutoState): void {
    const store = this.options.store;
    if (!store) return;
    const a = persistedOf(before);
    const b = persistedOf(after);
    if (a.subscriptionId === b.subscriptionId && a.excluded === b.excluded && a.returnCandidate === b.returnCandidate) return;
    const complain = (error: unknown) =>
      this.options.logger.warn('AUTO', `could not save Auto's state: ${error instanceof Error ? error.message : String(error)}`);
    try {
      const pending = store.save(b);
      if (pending) pending.catch(complain);
    } catch (error) {
      complain(error);
    }
  }

  private notifyChange(): void {
    if (this.changes.observed) this.changes.emit(this.snapshot());
  }
}
