import type { ServerId, SubscriptionId } from './server';
import type { ProbeFailure } from './measurement';

/** Why a check started (the contract of spec/scenario.md). */
export const CHECK_TRIGGERS = [
  'stall',
  /** The current server's transfer test froze (or was throttled below the floor) while its ping answers. */
  'freeze',
  'dial-failure',
  'no-receive-30s',
  'scheduled',
  'widened',
  'neighbour-sub',
  'own-sub-retry',
  'user',
  'auto-on',
  'server-removed',
] as const;
export type CheckTrigger = (typeof CHECK_TRIGGERS)[number];

export const SWITCH_REASONS = [
  'current-silent',
  'neighbour-subscription',
  'return',
  'excluded',
  'server-removed',
  'auto-on',
] as const;
export type SwitchReason = (typeof SWITCH_REASONS)[number];

/**
 * One decision of Auto. The same objects are printed by `npm run sim` (one JSON line each),
 * written as `AUTO` log lines and drawn on the UI's timeline.
 */
export type AutoDecision =
  | {
      type: 'check';
      at: number;
      trigger: CheckTrigger;
      probe: ServerId[];
      /** Candidates whose recent answer counts in this check without waiting for their probe (a dial failure's check). */
      inHand?: { id: ServerId; delay: number; ageMs: number }[];
      /** A dial failure's check: how the core's dial failed, when it said ('reset', 'refused', 'timeout', …). */
      failure?: ProbeFailure;
      /** A freeze check: what the current server's transfer test saw ("traffic freezes after 16 KB on A1"). */
      transfer?: { server: ServerId; verdict: 'freezes' | 'throttled'; bytes: number };
    }
  /** A stall has lasted half the threshold: the servers the check would probe are probed ahead of it. */
  | { type: 'prepare'; at: number; probe: ServerId[] }
  | {
      type: 'probe-result';
      at: number;
      id: ServerId;
      delay: number | null;
      recorded: boolean;
      /** Its transfer test says it freezes (so its ping answer counted as none) or is throttled. */
      transfer?: 'freezes' | 'throttled';
    }
  | {
      type: 'stay';
      at: number;
      id: ServerId;
      reason: string;
      /** With reason `return-pending`: the server Auto left, and how many answers in a row it has of those needed. */
      candidate?: ServerId;
      answers?: number;
      needed?: number;
    }
  | { type: 'switch'; at: number; from: ServerId | null; to: ServerId; reason: SwitchReason }
  | { type: 'network-lost'; at: number; attempt: number; next_in_ms: number }
  | { type: 'rate-limited'; at: number; until: number }
  | { type: 'pause'; at: number; until: number; reason: string }
  /** The settings Auto runs by changed (the user saved Settings; a scenario's `settings` action). */
  | { type: 'settings'; at: number; stallThresholdMs: number; probeTimeoutMs: number };

/** A timeline entry: a decision plus the server carrying the traffic at that moment. */
export type TimelineEntry = AutoDecision & { carrying: ServerId | null };

/** What the UI shows of Auto. */
export interface AutoSnapshot {
  /** The subscription Auto is on for, or null when off. */
  subscriptionId: SubscriptionId | null;
  /** Servers the user marked so Auto will not switch to them, per subscription. */
  excluded: Record<SubscriptionId, ServerId[]>;
  /** The server Auto left and may return to. */
  returnCandidate: ServerId | null;
  /** A network-loss back-off is under way until this time (epoch ms). */
  networkLostUntil: number | null;
  /**
   * Nothing has answered since this time (epoch ms): the live traffic stalled and the fastest
   * servers of every subscription were silent too (or the OS reports no network). Seen within
   * about 2 s of a loss; Auto's own verdict (`networkLostUntil`) confirms it later. Absent: null.
   */
  networkSilentSince?: number | null;
  timeline: TimelineEntry[];
  /** Each server group's pick, chosen by Auto's rules among its members (absent: no groups). */
  groups?: GroupPickSnapshot[];
}

/**
 * A server group's pick as the window shows it. `on`: a member carries the group's traffic;
 * `down`: no member answers while other servers do, so its traffic is blocked (and the members
 * are checked again once a minute); `none`: the group has no member yet (e.g. no exit country is
 * known yet) or Auto has not picked.
 */
export interface GroupPickSnapshot {
  name: string;
  pick: ServerId | null;
  members: number;
  /** The members in the group's order (the window's exclusion list shows them). */
  memberIds: ServerId[];
  state: 'on' | 'down' | 'none';
  /** Why the pick is the one it is: its last switch's reason, or `restored` from the last run. */
  reason: SwitchReason | 'restored' | null;
  /** The group's own marks: members the user keeps off this group's sites. */
  excluded: ServerId[];
  /** Members the user excluded from Auto in their own subscriptions: the group does not take them either. */
  excludedInAuto: ServerId[];
  returnCandidate: ServerId | null;
  networkLostUntil: number | null;
  timeline: TimelineEntry[];
}
