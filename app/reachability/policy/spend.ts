/**
 * What a verdict cost (pure): the probes spent on a server from the first failure of its streak
 * ("an episode") to the verdict, as the log line's `[spent: …]` and `budget()` report them.
 */
import type { ServerId } from '../../../shared/domain/server';
import type { Verdict } from '../../../shared/domain/status';
import { formatDuration } from './verdict';

/** The probes spent on one server since the first failure of its current streak. */
export interface EpisodeSpend {
  firstFailureAt: number;
  /** Chained probes through vantage points (conclusive or not). */
  vantageProbes: number;
  /** Of those, probes whose vantage point itself failed (not votes). */
  inconclusiveProbes: number;
  rounds: number;
  /** Confirmation tests from here. */
  confirmations: number;
}

/** What one verdict cost, counted from the first failure of its streak. */
export interface VerdictBudget extends Omit<EpisodeSpend, 'firstFailureAt'> {
  serverId: ServerId;
  name: string;
  verdict: Verdict;
  at: number;
  /** From the streak's first failure to this verdict. */
  sinceFirstFailureMs: number;
}

export function verdictBudget(server: { id: ServerId; name: string }, verdict: Verdict, episode: EpisodeSpend, now: number): VerdictBudget {
  return {
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
}

/** The suffix of a verdict's log line. */
export function describeSpend(entry: VerdictBudget): string {
  return ` [spent: ${entry.vantageProbes} vantage probe(s) in ${entry.rounds} round(s), ${entry.confirmations} confirmation(s) from here, ${formatDuration(entry.sinceFirstFailureMs)} since the first failure]`;
}
