/**
 * A server group's pick, chosen by Auto's own reducer scoped to the group's members: one
 * AutoRuntime per group, whose world holds the group's members as its subscription and every
 * other server as the neighbours it asks when the whole group is silent. So the score, the stall
 * and dial-failure triggers (from the group outbound's own counters), the network-lost test by
 * neighbours, return, the rate limits and the exclusions are Auto's, not a copy of them.
 *
 * Where the reducer would move to a neighbour's server (the group silent, the network fine), a
 * group has nowhere to go: its traffic is meant for its members' countries. The group is then
 * "down": its outbound blocks (the tunnel's 403) and says why, while the reducer, believing itself
 * away, checks the members once a minute (pausing after 5 failures) and comes back to the first
 * that answers twice, as Auto returns to its own subscription.
 */
import type { AutoDecision, GroupPickSnapshot, SwitchReason, TimelineEntry } from '../../shared/domain/auto';
import type { TrafficSample } from '../../shared/domain/connection';
import type { ProbeFailure } from '../../shared/domain/measurement';
import type { ServerId } from '../../shared/domain/server';
import type { Clock } from '../clock';
import type { Logger } from '../log/logger';
import type { AutoConfig } from './policy/constants';
import type { SubscriptionServers } from './policy/world';
import type { AutoProbePort, MeasurementPort, ReachabilityPort } from './ports';
import { AutoRuntime } from './runtime';

/** The subscription id a group's members stand under in its Auto's world (never a real one's: those are never prefixed so). */
export const groupSubscriptionId = (name: string): string => `group:${name}`;

/** What survives a restart of one group's pick. */
export interface PersistedGroupPick {
  pick: ServerId | null;
  excluded: ServerId[];
  returnCandidate: ServerId | null;
}

export interface GroupPickerOptions {
  name: string;
  clock: Clock;
  logger: Logger;
  config: AutoConfig;
  probe: AutoProbePort;
  measurements: MeasurementPort;
  reachability?: ReachabilityPort;
  /** The group's members among the servers of the day, in the group's order. */
  members(): readonly ServerId[];
  /** Every subscription in list order (the neighbours come from their servers outside the group). */
  subscriptions(): readonly SubscriptionServers[];
  /** Puts the pick in force (null: the group blocks its traffic). Rejects when it could not. */
  apply(pick: ServerId | null): Promise<void>;
  /** The main connection is up (the group's outbound runs in its core). */
  connected(): boolean;
  /**
   * The user excluded the server from Auto in its own subscription: a group never takes it either
   * (unless every member is so marked, when it chooses among them as Auto does), beside the
   * group's own marks, which keep a server off this group's sites alone.
   */
  markedInAuto?(id: ServerId): boolean;
  persisted?: PersistedGroupPick;
  save?(state: PersistedGroupPick): void;
}

export class GroupPicker {
  private readonly auto: AutoRuntime;
  private current: ServerId | null;
  /** Why the pick is the one it is (its last switch's reason), for the window. */
  private reason: SwitchReason | 'restored' | null;
  private saved: string;

  constructor(private readonly options: GroupPickerOptions) {
    const id = groupSubscriptionId(options.name);
    const persisted = options.persisted;
    // The last run's pick, if it is still a member (a group edited since may have lost it).
    this.current = persisted?.pick != null && options.members().includes(persisted.pick) ? persisted.pick : null;
    this.reason = this.current === null ? null : 'restored';
    this.saved = JSON.stringify(persisted ?? null);
    this.auto = new AutoRuntime({
      clock: options.clock,
      logger: groupLogger(options.logger, options.name),
      config: options.config,
      probe: options.probe,
      measurements: options.measurements,
      reachability: options.reachability,
      subscriptions: { list: () => this.world() },
      tunnel: {
        switchTo: (to) => this.switchTo(to),
        current: () => this.current,
        connected: () => options.connected() && this.current !== null,
      },
      ...(options.markedInAuto ? { markedElsewhere: (server: ServerId) => options.markedInAuto!(server) } : {}),
      persisted: { subscriptionId: id, excluded: persisted?.excluded.length ? { [id]: persisted.excluded } : {}, returnCandidate: persisted?.returnCandidate ?? null },
      store: { save: () => this.persist() },
    });
    this.auto.onDecision((decision) => {
      if (decision.type === 'switch') this.reason = decision.reason;
    });
  }

  get name(): string {
    return this.options.name;
  }

  /** The pick in force: a member, or null while the group has none or is down. */
  pick(): ServerId | null {
    return this.current !== null && this.isMember(this.current) ? this.current : null;
  }

  /** The main connection came up: the group's outbound is up on its pick, or a first pick is made. */
  connectedNow(): void {
    if (this.current === null) this.pickFirst();
    else this.auto.tunnelConnected(this.current);
  }

  disconnected(): void {
    this.auto.tunnelDisconnected();
  }

  /** The group's own bytes through its outbound (never the main connection's). */
  traffic(sample: TrafficSample, own: { upBytes: number; downBytes: number }): void {
    if (this.current !== null && !this.isMember(this.current)) {
      // Down: the group's outbound blocks and counts nothing, yet the members are to be checked
      // again while the device is in use (an idle one is never probed). The connection's bytes
      // stand for that use, as activity only: nothing carries the group's traffic to stall.
      const bytes = own.upBytes + own.downBytes + sample.upBytes + sample.downBytes;
      this.auto.traffic({ at: sample.at, intervalMs: sample.intervalMs, upBytes: 0, downBytes: bytes });
      return;
    }
    this.auto.traffic({ at: sample.at, intervalMs: sample.intervalMs, upBytes: own.upBytes, downBytes: own.downBytes });
  }

  dialFailure(serverId: ServerId, kind?: ProbeFailure): void {
    this.auto.dialFailure(serverId, kind);
  }

  networkChanged(state: 'none' | 'up'): void {
    this.auto.networkChanged(state);
  }

  transferSeen(serverId: ServerId): void {
    this.auto.transferSeen(serverId);
  }

  reconfigure(config: AutoConfig): void {
    this.auto.reconfigure(config);
  }

  /** The members changed (an update, an exit country learnt, the group edited). */
  membersChanged(): void {
    this.auto.subscriptionsUpdated();
    if (this.current === null) this.pickFirst();
  }

  /** The user's marks among the group's members; refused for the last unmarked one. */
  setExcluded(ids: ServerId[]) {
    return this.auto.setExcluded(groupSubscriptionId(this.options.name), ids);
  }

  /** The user's marks in the servers' own subscriptions changed: a pick marked there is left. */
  autoMarksChanged(): void {
    this.auto.marksChanged();
  }

  snapshot(): GroupPickSnapshot {
    const auto = this.auto.snapshot();
    const id = groupSubscriptionId(this.options.name);
    const pick = this.pick();
    return {
      name: this.options.name,
      pick,
      members: this.options.members().length,
      memberIds: [...this.options.members()],
      state: pick !== null ? 'on' : this.current !== null ? 'down' : 'none',
      reason: this.reason,
      excluded: auto.excluded[id] ?? [],
      excludedInAuto: this.options.members().filter((member) => this.options.markedInAuto?.(member) ?? false),
      returnCandidate: auto.returnCandidate,
      networkLostUntil: auto.networkLostUntil,
      timeline: auto.timeline,
    };
  }

  timeline(): TimelineEntry[] {
    return this.auto.snapshot().timeline;
  }

  /** Every decision of the group's Auto as it is made (the simulator prints them). */
  onDecision(listener: (decision: AutoDecision) => void): () => void {
    return this.auto.onDecision(listener);
  }

  onChange(listener: () => void): () => void {
    return this.auto.onChange(() => listener());
  }

  stop(): void {
    this.auto.stop();
  }

  /** The group's world: its members as the subscription, the rest of the servers as the neighbours. */
  private world(): SubscriptionServers[] {
    const members = this.options.members();
    const inGroup = new Set(members);
    const others = this.options.subscriptions().map((s) => ({ id: s.id, serverIds: s.serverIds.filter((server) => !inGroup.has(server)) }));
    return [{ id: groupSubscriptionId(this.options.name), serverIds: members }, ...others];
  }

  private isMember(id: ServerId): boolean {
    return this.options.members().includes(id);
  }

  /** No pick yet: Auto's "turned on" picks the best-scored member (with none, nothing happens). */
  private pickFirst(): void {
    if (this.options.members().length === 0) return;
    // Picked while the group's outbound is not up yet: the reducer logs no switch line for it.
    this.reason = 'auto-on';
    this.auto.setAuto(groupSubscriptionId(this.options.name));
  }

  private async switchTo(to: ServerId): Promise<void> {
    this.current = to;
    const member = this.isMember(to);
    if (!member) this.options.logger.warn('AUTO', `group ${this.options.name}: no member answers while other servers do; its traffic is blocked until one answers again`);
    this.persist();
    await this.options.apply(member ? to : null);
    if (this.current === to && this.options.connected()) this.auto.tunnelConnected(to);
  }

  private persist(): void {
    const auto = this.auto?.snapshot();
    const state: PersistedGroupPick = {
      pick: this.pick(),
      excluded: auto?.excluded[groupSubscriptionId(this.options.name)] ?? [],
      returnCandidate: auto?.returnCandidate ?? null,
    };
    const text = JSON.stringify(state);
    if (text === this.saved) return;
    this.saved = text;
    this.options.save?.(state);
  }
}

/** The group's Auto lines say whose they are ("group AI: switch us2 → us1: …"), beside the main connection's. */
function groupLogger(logger: Logger, name: string): Logger {
  const prefixed = Object.create(logger) as Logger;
  prefixed.log = (level, tag, message, at) => logger.log(level, tag, `group ${name}: ${message}`, at);
  return prefixed;
}
