/**
 * What reachability itself has seen, from where and when: its confirmation tests from here (the
 * monitor's own results stay the monitor's), what each vantage point said of each target, and
 * which probes are under way. Nothing here is a verdict; the verdicts are derived from it and from
 * the monitor's results every time (./policy/plan.ts).
 */
import type { ServerId } from '../../shared/domain/server';
import type { HereResult } from './policy/here';
import type { VantageObservation } from './policy/observation';
import type { ReachabilityRules } from './policy/rules';
import { keptObservations } from './policy/witness';

/** The probes under way and when each target's last round started, as the planner reads them. */
export interface Probing {
  lastRoundAt: ReadonlyMap<ServerId, number>;
  roundsInFlight: ReadonlySet<ServerId>;
  confirmsInFlight: ReadonlySet<ServerId>;
}

/** Confirmations kept per server: enough for a streak (3) with room for the monitor's interleaving. */
const KEEP_CONFIRMATIONS = 5;

export class ObservationStore {
  private readonly confirmations = new Map<ServerId, HereResult[]>();
  private readonly observations = new Map<ServerId, VantageObservation[]>();
  private readonly lastRoundAt = new Map<ServerId, number>();
  private readonly roundsInFlight = new Set<ServerId>();
  private readonly confirmsInFlight = new Set<ServerId>();

  confirmationStarted(serverId: ServerId): void {
    this.confirmsInFlight.add(serverId);
  }

  /** The confirmation's result; null when the test could not run (nothing was seen). */
  confirmationEnded(serverId: ServerId, result: HereResult | null): void {
    this.confirmsInFlight.delete(serverId);
    if (!result) return;
    this.confirmations.set(serverId, [...(this.confirmations.get(serverId) ?? []), result].slice(-KEEP_CONFIRMATIONS));
  }

  roundStarted(targetId: ServerId, at: number): void {
    this.lastRoundAt.set(targetId, at);
    this.roundsInFlight.add(targetId);
  }

  roundEnded(targetId: ServerId): void {
    this.roundsInFlight.delete(targetId);
  }

  /** A conclusive probe of `targetId` through a vantage point (an inconclusive one is no observation). */
  observed(targetId: ServerId, observation: VantageObservation): void {
    this.observations.set(targetId, [...(this.observations.get(targetId) ?? []), observation]);
  }

  confirmationsOf(serverId: ServerId): readonly HereResult[] {
    return this.confirmations.get(serverId) ?? [];
  }

  /** Vantage observations by target, oldest first. */
  vantageObservations(): ReadonlyMap<ServerId, readonly VantageObservation[]> {
    return this.observations;
  }

  probing(): Probing {
    return { lastRoundAt: this.lastRoundAt, roundsInFlight: this.roundsInFlight, confirmsInFlight: this.confirmsInFlight };
  }

  /** Forgets servers no longer listed, and vantage observations that are neither fresh nor a witness's memory (witness.ts). */
  prune(present: ReadonlySet<ServerId>, now: number, rules: ReachabilityRules): void {
    for (const map of [this.confirmations, this.observations, this.lastRoundAt] as Map<ServerId, unknown>[]) {
      for (const id of map.keys()) if (!present.has(id)) map.delete(id);
    }
    for (const [id, list] of this.observations) {
      const kept = keptObservations(list, now, rules);
      if (kept.length === 0) this.observations.delete(id);
      else this.observations.set(id, kept);
    }
  }
}
