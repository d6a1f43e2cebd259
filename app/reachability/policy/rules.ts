/**
 * The numbers behind reachability verdicts (spec/reachability.md), all derived from the
 * monitor's `interval` so the rules keep their shape whether the monitor tests every 5 minutes
 * (the default) or every 5 seconds (the lab's integration tests):
 *
 * | rule | value | at the default 5 min interval |
 * |---|---|---|
 * | freshness: older results do not count | 2 × interval | 10 min |
 * | a streak counts from | 3 consecutive failures from here … | |
 * | … spanning at least | min(60 s, interval / 5) first to last | 60 s |
 * | a failure is confirmed from here after | half that span, after the last failure | 30 s |
 * | outside vantage points are asked from | the 2nd failure in a row ("keeps failing") | |
 * | vantage points per verdict | at most 3 (the trusted checker alone when it works) | |
 * | one round of vantage probes per server | at most once per interval | 5 min |
 * | … and only right after a failure from here | within max(1 s, the confirmation spacing) | 30 s |
 * | all vantage probes together | at most 30 per interval | |
 * | a chained probe may take | 2 × url_test_timeout | 10 s |
 * | a witness (the user's network, a vantage point) looks broken when | ≥ half of the servers it reached (≥ 2 of them) now fail through it | |
 *
 * Why these: one failure is a blink (seed rule 2), so a verdict needs a streak, and the span
 * keeps a burst of simultaneous failures (a cycle test and an Auto check at the same moment)
 * from passing for one. Confirmations from here make the streak reach its threshold within about
 * a minute of the first failure instead of waiting two more cycles, which is what lets a blocked
 * server be named within two monitor intervals. Freshness is two intervals so a verdict survives
 * one slow cycle but never outlives the data it came from (seed rule 8, self-healing).
 */

export interface ReachabilityRules {
  /** Results (from here and from vantage points) older than this do not count. */
  freshnessMs: number;
  /** Consecutive failures from here before a verdict may blame anyone. */
  streakFailures: number;
  /** The streak's first and last failure must be at least this far apart. */
  streakMinSpanMs: number;
  /** A failure from here is re-tested from here this long after it (while the streak is short). */
  confirmSpacingMs: number;
  /** Timeout of a confirmation probe from here. */
  confirmTimeoutMs: number;
  /** Vantage points are asked once the streak has this many failures. */
  vantageAfterFailures: number;
  /** At most this many vantage points per round (one round yields one verdict). */
  maxVantagesPerRound: number;
  /** A server gets at most one round of vantage probes per this long (the monitor's interval). */
  roundIntervalMs: number;
  /**
   * A round starts only this soon after a failure from here; a round that falls due later first
   * re-tests from here. Outside votes are compared with a failure from here of the same moment,
   * so a server that came back meanwhile is seen answering, not called blocked.
   */
  roundFailureWindowMs: number;
  /** All vantage probes together: at most this many per `roundIntervalMs`. */
  maxProbesPerWindow: number;
  /** Timeout of one chained probe through a vantage point. */
  vantageTimeoutMs: number;
  /** The unreliable-witness rule: at least this many servers a witness reached must fail at once … */
  networkLostMinFailing: number;
  /** … and at least this share of them (seed 004: half or more). */
  networkLostShare: number;
  /** A server is a witness when it answered from here within this long (Auto's 24 h window). */
  witnessLookbackMs: number;
}

export interface RuleInputs {
  intervalMs: number;
  urlTestTimeoutMs: number;
}

export const STREAK_FAILURES = 3;
export const MAX_STREAK_SPAN_MS = 60_000;
export const MAX_VANTAGES_PER_ROUND = 3;
export const MAX_PROBES_PER_WINDOW = 30;

export function reachabilityRules(inputs: RuleInputs, overrides: Partial<ReachabilityRules> = {}): ReachabilityRules {
  const interval = Math.max(1000, inputs.intervalMs);
  const span = Math.min(MAX_STREAK_SPAN_MS, Math.round(interval / 5));
  return {
    freshnessMs: 2 * interval,
    streakFailures: STREAK_FAILURES,
    streakMinSpanMs: span,
    confirmSpacingMs: Math.round(span / 2),
    confirmTimeoutMs: inputs.urlTestTimeoutMs,
    vantageAfterFailures: 2,
    maxVantagesPerRound: MAX_VANTAGES_PER_ROUND,
    roundIntervalMs: interval,
    roundFailureWindowMs: Math.max(1000, Math.round(span / 2)),
    maxProbesPerWindow: MAX_PROBES_PER_WINDOW,
    vantageTimeoutMs: 2 * inputs.urlTestTimeoutMs,
    networkLostMinFailing: 2,
    networkLostShare: 0.5,
    witnessLookbackMs: 24 * 3600_000,
    ...overrides,
  };
}
