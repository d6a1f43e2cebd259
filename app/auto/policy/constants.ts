/**
 * Every number of spec/auto.md in one place, so a rule's test can name the figure it pins.
 * The stall threshold and the probe timeout are settings (shared/settings.ts) and come in through
 * `AutoConfig`; everything here is fixed by the spec.
 */
export const AUTO_RULES = {
  /** A server's score uses at most its last 5 measurements (of any method) ... */
  scoreWindow: 5,
  /** ... that are no older than 24 h (also the window of the switch score S'). */
  scoreMaxAgeMs: 24 * 3600_000,
  /** Each measurement without an answer adds this much to a score. */
  failurePenaltyMs: 1000,
  /** spec/monitor.md "Persisted results": Auto adds 20,000 ms to results loaded from the cache. */
  cachedPenaltyMs: 20_000,

  /** An ordinary check probes the current server and up to 9 best-scored others. */
  checkBest: 9,
  /** A scheduled check: the current one, the return candidate and the two best. */
  scheduledBest: 2,
  /** The widened check covers up to 30 servers (the current one included). */
  widenedTotal: 30,
  /** Neighbour subscriptions: the 2 best of the nearest above and of the nearest below. */
  neighbourBest: 2,

  /**
   * Trigger 1's "data is being sent": the sending goes on while each pause between two intervals
   * that sent is shorter than this share of the stall threshold (2.5 s on desktop, 1 s on mobile).
   * Finer (the tunnel samples every 250 ms) would break every run at a browser's first short
   * pause and leave a dead server to the 30 s trigger; a sender quieter than this is trigger 3's.
   */
  sendingGapShare: 0.5,
  /** Trigger 3: nothing received for 30 s although something was sent. */
  noReceiveMs: 30_000,
  /** Trigger 4: 5 min since the last scheduled check, and traffic in that time. */
  scheduledIntervalMs: 5 * 60_000,

  /** Network lost: T_k = min(15 · 2^(k−1), 120) s. */
  backoffBaseMs: 15_000,
  backoffCapMs: 120_000,

  /** Return to the server left once it answered this many times in a row. */
  returnAnswers: 2,
  /** While on a neighbour subscription's server the own subscription is checked once a minute ... */
  ownRetryIntervalMs: 60_000,
  /** ... until 5 consecutive failures, ... */
  ownRetryFailures: 5,
  /** ... which pause those checks for 15 min. */
  ownRetryPauseMs: 15 * 60_000,
  /**
   * How many of the own subscription's best servers an own-subscription check probes besides the
   * return candidate. The spec is silent; its job is a scheduled check's (spot the way back), so
   * it is sized like one, plus one.
   */
  ownRetryBest: 3,

  /**
   * A check started by a sign of failure (a stall, a dial failure, 30 s of silence) already holds
   * seconds of evidence against the current server. It is taken as silent once another server has
   * answered and it has not within this many of its usual delays (never sooner than
   * `silentAfterMinMs`, never later than the probe timeout); without a usual delay it gets the
   * whole probe timeout. A slow but live server answers well within three of its usual delays; a
   * dead one would otherwise keep the user waiting the full timeout after the stall.
   */
  silentAfterDelays: 3,
  silentAfterMinMs: 800,

  /**
   * In a check started by a dial failure, a candidate's URL answer younger than this counts as
   * its answer (in-hand.ts): spec/monitor.md's "a fresh selection measured within the last 15 s
   * is not retested".
   */
  inHandMaxAgeMs: 15_000,

  /**
   * Once a stall has lasted this share of the threshold, the servers the check would probe are
   * probed ahead of it, so at the threshold the check decides from answers in hand instead of
   * starting to measure then. The spec fixes when a check starts, not when it may prepare.
   */
  prepareShare: 0.5,
  /** ... while the stall is still being fed: something was sent within the last second. */
  prepareRecentSendMs: 1000,

  /**
   * A transfer result younger than this answers a check's question about a server's traffic
   * without a retest (the same 15 s after which spec/monitor.md retests a fresh selection).
   */
  transferFreshMs: 15_000,
  /**
   * The current server is watched for freezing while the connection is in use: its transfer test
   * runs when the connection starts, on suspicion (./suspicion.ts) once its last result is at
   * least `watchSuspicionRetestMs` old, and at least every `watchIntervalMs` unless the user's own
   * traffic proved within that time that the server does not freeze (./flow-proof.ts). One test is
   * 64 KB, so the periodic one also waits until the connection has received at least
   * `watchPeriodicTrafficBytes` since the last result, or `watchLightUseIntervalMs` has passed: a
   * test never costs more than the traffic it guards. A chat (a few KB every 10 s) was tested
   * every minute, 3.8 MB an hour for 1 MB of its own; now every 5 minutes, when the monitor's own
   * cycle would test the current server anyway. Traffic heavy enough for a freeze to cut is
   * tested every minute as before, a freeze that shows in the counters still brings a test on
   * suspicion, and a stream or a download that proves the server costs next to nothing.
   */
  watchIntervalMs: 60_000,
  watchPeriodicTrafficBytes: 64 * 1024,
  watchLightUseIntervalMs: 5 * 60_000,
  watchSuspicionRetestMs: 20_000,
  /** A watch test that has not ended after this long is taken as lost (the port never rejects, but a lost promise must not stop the watch). */
  watchLostAfterMs: 60_000,
  /**
   * A freeze check that found no server whose traffic passes leaves the user where they are; the
   * next freeze of the same server starts a check no sooner than this (the scheduled interval):
   * otherwise a country that freezes everything would cost every candidate's 64 KB each minute.
   */
  nothingPassesQuietMs: 5 * 60_000,

  /** At most 3 switches per 3 minutes. */
  switchLimit: 3,
  switchWindowMs: 3 * 60_000,
  /** No new check for 5 s after a switch: the reconnect itself looks like a failure for a moment. */
  afterSwitchQuietMs: 5000,
  /** ... and for 15 s after a check that did not switch. */
  afterCheckQuietMs: 15_000,
} as const;

/** The settings Auto takes from shared/settings.ts (desktop defaults: 5 s stall, 5 s probe timeout). */
export interface AutoConfig {
  /** Trigger 1: data sent and nothing received for this long (settings.stallThresholdMs). */
  stallThresholdMs: number;
  /** How long a check waits for each probe (settings.monitor.urlTestTimeoutMs). */
  probeTimeoutMs: number;
}

/** Network-loss back-off before attempt k+1, after k consecutive attempts found the network gone. */
export function networkLossBackoffMs(attempt: number): number {
  const k = Math.max(1, attempt);
  return Math.min(AUTO_RULES.backoffBaseMs * 2 ** (k - 1), AUTO_RULES.backoffCapMs);
}
