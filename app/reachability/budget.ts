/**
 * The probe ledger: every probe reachability spends, counted in total and per failure episode
 * (./policy/spend.ts), and the start times of recent vantage probes, which the planner's budget
 * across all servers reads (at most `maxProbesPerWindow` per interval).
 */
import type { ServerId } from '../../shared/domain/server';
import type { EpisodeSpend, VerdictBudget } from './policy/spend';

export interface ReachabilityBudget {
  vantageProbes: number;
  inconclusiveProbes: number;
  rounds: number;
  confirmations: number;
  /** Every logged verdict change of a server that was failing, oldest first (the last 200). */
  verdicts: VerdictBudget[];
}

/** What the planner reads of the ledger. */
export interface Spent {
  /** Start times of vantage probes within the last window (all targets). */
  probeTimes: readonly number[];
  /** Open failure episodes by server. */
  episodes: ReadonlyMap<ServerId, Readonly<EpisodeSpend>>;
}

/** Counts the probes of one round as they are made, against the episode open when it started. */
export interface RoundSpend {
  vantageProbe(at: number): void;
  inconclusive(): void;
}

const KEEP_BUDGETS = 200;

export class ProbeLedger {
  private readonly totals = { vantageProbes: 0, inconclusiveProbes: 0, rounds: 0, confirmations: 0 };
  private readonly episodes = new Map<ServerId, EpisodeSpend>();
  private readonly verdicts: VerdictBudget[] = [];
  private probeTimes: number[] = [];

  begin(serverId: ServerId, firstFailureAt: number): void {
    if (!this.episodes.has(serverId)) this.episodes.set(serverId, { firstFailureAt, vantageProbes: 0, inconclusiveProbes: 0, rounds: 0, confirmations: 0 });
  }

  end(serverId: ServerId): void {
    this.episodes.delete(serverId);
  }

  confirmation(serverId: ServerId): void {
    this.totals.confirmations++;
    const episode = this.episodes.get(serverId);
    if (episode) episode.confirmations++;
  }

  round(serverId: ServerId): RoundSpend {
    this.totals.rounds++;
    const episode = this.episodes.get(serverId);
    if (episode) episode.rounds++;
    return {
      vantageProbe: (at) => {
        this.probeTimes.push(at);
        this.totals.vantageProbes++;
        if (episode) episode.vantageProbes++;
      },
      inconclusive: () => {
        this.totals.inconclusiveProbes++;
        if (episode) episode.inconclusiveProbes++;
      },
    };
  }

  verdict(entry: VerdictBudget): void {
    this.verdicts.push(entry);
    if (this.verdicts.length > KEEP_BUDGETS) this.verdicts.shift();
  }

  /** Forgets episodes of servers no longer listed and probe times older than the window. */
  prune(present: ReadonlySet<ServerId>, now: number, windowMs: number): void {
    for (const id of this.episodes.keys()) if (!present.has(id)) this.episodes.delete(id);
    this.probeTimes = this.probeTimes.filter((t) => now - t <= windowMs);
  }

  spent(): Spent {
    return { probeTimes: this.probeTimes, episodes: this.episodes };
  }

  report(): ReachabilityBudget {
    return { ...this.totals, verdicts: this.verdicts.map((b) => ({ ...b })) };
  }
}
