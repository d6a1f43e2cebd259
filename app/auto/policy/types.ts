/**
 * The reducer's vocabulary: its state, the events it reacts to and the commands it returns.
 * Commands are data; app/auto/runtime.ts carries them out and feeds what happens back as events.
 */
import type { AutoDecision, CheckTrigger, SwitchReason } from '../../../shared/domain/auto';
import type { TrafficSample } from '../../../shared/domain/connection';
import type { Measurement, ProbeFailure } from '../../../shared/domain/measurement';
import type { RefusalCode } from '../../../shared/domain/refusal';
import type { ServerId, SubscriptionId } from '../../../shared/domain/server';
import type { TransferVerdict } from '../../../shared/domain/transfer';
import type { AutoConfig } from './constants';
import type { TrafficTracker } from './traffic';
import type { TransferMark } from './transfer';
import type { WatchReason, WatchState } from './watch';
import type { TransferSeen } from './world';

/** What a check is for; decides which servers it probes and what its outcome means. */
export type CheckKind = 'ordinary' | 'scheduled' | 'widened' | 'own-sub-retry';

/** Why no check may start now. */
export type HoldReason = 'after-switch' | 'after-check' | 'network-lost' | 'rate-limited';

export interface Hold {
  until: number;
  reason: HoldReason;
}

export interface ProbeAnswer {
  /** When the answer (or the timeout) came. */
  at: number;
  delayMs: number | null;
  error?: ProbeFailure;
  /** Its transfer test says it freezes (counted as not answering) or is throttled (marked only). */
  transfer?: TransferMark;
  /** In a freeze check: its traffic passes the check's gate (a fresh transfer result that does). */
  passed?: boolean;
}

/** A line of a check's account, kept until the check ends and it is known what was recorded. */
export type CheckLogEntry = { kind: 'result'; id: ServerId } | { kind: 'line'; decision: AutoDecision };

export interface CheckInFlight {
  id: number;
  trigger: CheckTrigger;
  kind: CheckKind;
  /**
   * 'prepared': a stall has lasted half the threshold and the check's probes are out, but the
   * check has not started (it starts at the threshold, or dissolves when the stall heals);
   * 'own': the check's own probes; 'neighbours': everyone was silent, the neighbours are asked.
   */
  phase: 'prepared' | 'own' | 'neighbours';
  /** When the check started (its `check` line); for a prepared one, when it was prepared. */
  startedAt: number;
  /** When the own probes went out (before `startedAt` when the check was prepared). */
  probedAt: number;
  /** The server the check was about (the current one when it started). */
  current: ServerId;
  ownIds: ServerId[];
  neighbourIds: ServerId[];
  /** Ids of the running phase still without an answer or timeout. */
  pending: ServerId[];
  results: Record<ServerId, ProbeAnswer>;
  /**
   * Candidates' recent answers that count as theirs until their probe returns (in-hand.ts): in
   * their history already, so never recorded or logged again.
   */
  inHand?: Record<ServerId, ProbeAnswer>;
  log: CheckLogEntry[];
  /**
   * The servers whose ping answer is followed by a transfer test before it counts (the current one
   * in a check started by the user's traffic stalling; a freeze check's candidates without a fresh
   * result; a return candidate whose traffic froze); each stays pending until that result.
   */
  transferOf?: ServerId[];
  /**
   * A freeze check (trigger `freeze`): a switch target needs a fresh transfer result passing this
   * gate (transfer.ts `passesGate`), and the current server counts only if its own now does.
   */
  gate?: TransferMark;
  /** A freeze check in which no candidate passed has gone on to the rest of the subscription (up to 30). */
  widenedWithin?: boolean;
}

/** The current server's transfer test failed in a way a check must answer; cleared when a check starts for it. */
export interface FrozenCurrent {
  serverId: ServerId;
  verdict: TransferMark;
  /** Bytes that came before the silence (or at all, when throttled). */
  bytes: number;
  at: number;
}

/** Auto moved to a neighbour subscription's server; the own subscription is retried once a minute. */
export interface AwayState {
  /** Consecutive own-subscription checks in which none of its servers answered. */
  failures: number;
  nextRetryAt: number;
  /** The time of the last own-subscription check (traffic since then makes the next one due). */
  lastRetryAt: number;
}

export interface AutoState {
  config: AutoConfig;
  /** The subscription Auto is on for (one at a time), or null when off. */
  subscriptionId: SubscriptionId | null;
  /** Marked servers per subscription, by server id (ids are stable across updates). */
  excluded: Record<SubscriptionId, ServerId[]>;
  /** The server the tunnel is on (or will connect to). */
  current: ServerId | null;
  connected: boolean;
  /** The OS's view: 'none' means no network at all, and no check starts. */
  network: 'up' | 'none';
  traffic: TrafficTracker;
  lastScheduledAt: number;
  check: CheckInFlight | null;
  nextCheckId: number;
  /** The 5 s / 15 s cooldown after a switch / a check. */
  quiet: Hold | null;
  /** Network lost: consecutive attempts so far and when the next may start. */
  networkLoss: { attempt: number; until: number } | null;
  /** 3 switches in 3 minutes happened: no check until then. */
  rateLimitedUntil: number | null;
  /** Times of Auto's own recent switches (for the 3-per-3-minutes limit). */
  switchTimes: number[];
  /** The own subscription was silent and the neighbours answered: the next check widens. */
  widen: { since: number } | null;
  away: AwayState | null;
  /** The server Auto left and may return to. */
  returnCandidate: ServerId | null;
  /** Consecutive answers per server in the checks since the last switch. */
  answerStreak: Record<ServerId, number>;
  /** The hold last announced by a line, so a held trigger does not log it again. */
  announcedHold: Hold | null;
  /** The wake-up last requested from the runtime. */
  wakeAt: number | null;
  /**
   * A check that ended before all its probes returned (its current server was silent by its
   * deadline): the answers still to come — the current server's included — are recorded when
   * they arrive, so a dead candidate carries its failure and a late current server its answer.
   */
  trailing: { checkId: number; current: ServerId; pending: ServerId[] } | null;
  /** The current server's transfer test just froze (or was throttled): a freeze check is due. */
  frozen: FrozenCurrent | null;
  /** A freeze check found nothing that passes: the next freeze trigger waits until then. */
  freezeQuietUntil: number | null;
  /** The current server's transfer tests while the connection is in use (watch.ts). */
  watch: WatchState;
}

export type AutoEvent =
  | { type: 'traffic'; sample: TrafficSample }
  /** The core failed to connect to a server; `kind` is how (absent: not said, e.g. the core did not start). */
  /**
   * The core failed a dial through `serverId`. `of: 'destination'` when the server carried it and
   * the destination failed on its own (the app's own fetch of a provider that failed directly too).
   */
  | { type: 'dial-failure'; serverId: ServerId; kind?: ProbeFailure; of?: 'destination' }
  /** The OS reported a network change ('up' after 'up' is a change too: Wi-Fi ↔ mobile). */
  | { type: 'network'; state: 'up' | 'none' }
  | { type: 'subscriptions-updated' }
  | { type: 'set-auto'; subscriptionId: SubscriptionId | null }
  /** The user's marks for a subscription after "Done". */
  | { type: 'set-excluded'; subscriptionId: SubscriptionId; ids: ServerId[] }
  /** Marks the reducer reads from its world (`markedElsewhere`) changed: a group's, when the user marked servers in their subscriptions. */
  | { type: 'marks-changed' }
  | { type: 'manual-connect'; serverId: ServerId }
  | { type: 'check-now' }
  | { type: 'tunnel-connected'; serverId: ServerId }
  | { type: 'tunnel-disconnected' }
  | { type: 'probe-result'; checkId: number; serverId: ServerId; delayMs: number | null; error?: ProbeFailure }
  /** The transfer test that followed a check's ping answer (null: it could not be made). */
  | { type: 'transfer-result'; checkId: number; serverId: ServerId; verdict: TransferVerdict | null }
  /** A transfer test of the server ended and is its latest result (the monitor's, a check's, the watch's). */
  | { type: 'transfer-seen'; serverId: ServerId; result: TransferSeen }
  /** The watch's transfer test of the server ended (its result, if any, came as `transfer-seen`). */
  | { type: 'watch-ended'; serverId: ServerId }
  | { type: 'wake' }
  /** The settings Auto runs by changed; they hold from this event on. */
  | { type: 'configure'; config: AutoConfig };

/** Why a Connect was issued: Auto's switch reasons, a user's manual choice, or a plain selection while disconnected. */
export type ConnectReason = SwitchReason | 'manual';

export type AutoCommand =
  /** `transferAfter`: servers whose ping answer is to be followed by a transfer test. */
  | { kind: 'probe'; checkId: number; ids: ServerId[]; timeoutMs: number; purpose: CheckKind | 'neighbours'; transferAfter?: ServerId[] }
  | { kind: 'connect'; serverId: ServerId; reason: ConnectReason }
  | { kind: 'wake'; at: number | null }
  | { kind: 'record'; results: { serverId: ServerId; measurement: Measurement }[] }
  /** The current server's transfer test, now, as the monitor runs and records it (the watch). */
  | { kind: 'transfer-test'; serverId: ServerId; reason: WatchReason }
  /** The monitor tests the server now, as an ordinary event test it records (a switch made without a probe). */
  | { kind: 'event-test'; serverId: ServerId }
  | { kind: 'log'; decision: AutoDecision }
  /** The user's request is refused: the code names why for the window, the reason says it in English. */
  | { kind: 'refuse'; code: RefusalCode; reason: string }
  | { kind: 'emit' };

export interface StepResult {
  state: AutoState;
  commands: AutoCommand[];
}
