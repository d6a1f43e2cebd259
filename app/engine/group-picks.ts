/**
 * The server groups of the settings, each with its pick chosen by Auto's rules (app/auto/groups.ts),
 * joined to the tunnel: the tunnel carries every group beside the main connection, a group's
 * own bytes and failed dials go to its picker, and a pick is put in force by the tunnel's group
 * switch (swapped live in Xray, a core restart on v2ray). Members are worked out again when the
 * servers, their exit countries or the groups change; a group edited in the settings starts over.
 */
import type { GroupPickSnapshot } from '../../shared/domain/auto';
import type { Server, ServerId, SubscriptionId } from '../../shared/domain/server';
import type { ServerStatus } from '../../shared/domain/status';
import type { ServerGroup, Settings } from '../../shared/settings';
import { type AutoConfig, type AutoProbePort, GroupPicker, type Outcome, type MeasurementPort, type PersistedGroupPicks, type ReachabilityPort, type SubscriptionServers } from '../auto';
import type { Clock } from '../clock';
import type { GroupRoute } from '../core';
import type { Logger } from '../log/logger';
import { groupMembers } from '../routing/groups/members';
import type { TunnelController } from '../tunnel/controller';

export interface GroupPicksOptions {
  clock: Clock;
  logger: Logger;
  settings: () => Settings;
  config: () => AutoConfig;
  probe: AutoProbePort;
  measurements: MeasurementPort;
  reachability?: ReachabilityPort;
  status: (id: ServerId) => ServerStatus;
  servers: { all(): readonly Server[]; withUpstream(id: ServerId): { server: Server; via?: Server } | undefined };
  /**
   * Whether the tunnel runs the server, on its own core or in a carrier (sing-box) beside it (a
   * carried pick gets a carrier of its own: app/tunnel/group-carrier.ts). A server neither runs
   * is no member: it would stop the core starting.
   */
  runsInTunnel: (id: ServerId) => boolean;
  subscriptions: () => readonly SubscriptionServers[];
  tunnel: Pick<TunnelController, 'setGroups' | 'switchGroup' | 'on' | 'state'> | null;
  /** The main Auto's marks per subscription: a server excluded there is taken by no group either. */
  excludedInAuto: () => Readonly<Record<SubscriptionId, readonly ServerId[]>>;
  persisted: PersistedGroupPicks;
  save: (state: PersistedGroupPicks) => void;
  /** Any group's pick or timeline changed. */
  changed: () => void;
}

interface Running {
  definition: string;
  picker: GroupPicker;
  members: ServerId[];
  unsubscribe: () => void;
}

export class GroupPicks {
  private readonly running = new Map<string, Running>();
  private readonly saved: PersistedGroupPicks;
  private readonly unbind: (() => void)[] = [];
  /** The main Auto's marks as a set, rebuilt when its record is a new one (the reducer replaces it on every change). */
  private autoMarks: { of: unknown; ids: ReadonlySet<ServerId> } = { of: null, ids: new Set() };

  constructor(private readonly options: GroupPicksOptions) {
    this.saved = { groups: { ...options.persisted.groups } };
    const tunnel = options.tunnel;
    if (!tunnel) return;
    this.unbind.push(
      tunnel.on('traffic', (sample) => {
        for (const [name, { picker }] of this.running) picker.traffic(sample, sample.groups?.[name] ?? { upBytes: 0, downBytes: 0 });
      }),
      tunnel.on('groupDialFailure', (failure) => this.running.get(failure.group)?.picker.dialFailure(failure.serverId, failure.kind)),
      tunnel.on('state', (state) => {
        for (const { picker } of this.running.values()) {
          if (state.state === 'connected') picker.connectedNow();
          else if (state.state === 'disconnected' || state.state === 'failed') picker.disconnected();
        }
      }),
    );
  }

  /**
   * The groups of the settings now: new ones start, edited ones start over, removed ones stop; the
   * tunnel is told. First called once the monitor has read its cache, so members by exit country
   * (and with them the last run's picks) are known from the start.
   */
  follow(): void {
    const groups = this.options.settings().groups;
    const wanted = new Map(groups.map((g) => [g.name, g]));
    let changed = false;
    for (const [name, run] of this.running) {
      const group = wanted.get(name);
      if (group && JSON.stringify(group) === run.definition) continue;
      run.unsubscribe();
      run.picker.stop();
      this.running.delete(name);
      if (!group && name in this.saved.groups) {
        // A removed group's pick is forgotten; an edited one's is kept for its new members to judge.
        delete this.saved.groups[name];
        this.options.save({ groups: { ...this.saved.groups } });
      }
      changed = true;
    }
    const started = groups.filter((g) => !this.running.has(g.name)).map((g) => this.start(g));
    if (!changed && started.length === 0) return;
    // The tunnel knows the groups before any of them is switched to its first pick.
    void this.options.tunnel?.setGroups(this.routes()).catch((error: unknown) => this.options.logger.warn('ENGINE', `groups: ${String(error)}`));
    for (const picker of started) {
      if (this.options.tunnel?.state().state === 'connected') picker.connectedNow();
      else picker.membersChanged();
    }
  }

  /** The servers, their exit countries or the subscriptions changed: each group's members are worked out again. */
  membersMaybeChanged(): void {
    for (const [name, run] of this.running) {
      const group = this.options.settings().groups.find((g) => g.name === name);
      if (!group) continue;
      const members = this.membersOf(group);
      if (members.join('\n') === run.members.join('\n')) continue;
      run.members = members;
      run.picker.membersChanged();
    }
  }

  /** The groups as the tunnel carries them: each with its pick (and the pick's front, when chained). */
  routes(): GroupRoute[] {
    return [...this.running.values()].map(({ picker }) => ({ name: picker.name, pick: this.routeOf(picker.pick()) }));
  }

  /** The servers the groups are on (the monitor tests them as selections). */
  picks(): ServerId[] {
    return [...this.running.values()].flatMap(({ picker }) => picker.pick() ?? []);
  }

  /**
   * The user's marks for one group's members, after "Done"; refused when it would mark the last
   * member neither list marks, or when there is no such group.
   */
  setExcluded(name: string, ids: ServerId[]): Outcome {
    const run = this.running.get(name);
    if (!run) return { ok: false, code: 'no-such-group', error: `There is no server group "${name}".` };
    return run.picker.setExcluded(ids);
  }

  /** Auto's snapshot changed: when its marks did, each group leaves a pick now marked. */
  autoMarksChanged(): void {
    if (this.options.excludedInAuto() === this.autoMarks.of) return;
    this.markedInAuto('');
    for (const { picker } of this.running.values()) picker.autoMarksChanged();
  }

  snapshots(): GroupPickSnapshot[] {
    return [...this.running.values()].map(({ picker }) => picker.snapshot());
  }

  networkChanged(state: 'none' | 'up'): void {
    for (const { picker } of this.running.values()) picker.networkChanged(state);
  }

  transferSeen(serverId: ServerId): void {
    for (const { picker } of this.running.values()) picker.transferSeen(serverId);
  }

  reconfigure(config: AutoConfig): void {
    for (const { picker } of this.running.values()) picker.reconfigure(config);
  }

  stop(): void {
    for (const unbind of this.unbind) unbind();
    for (const run of this.running.values()) {
      run.unsubscribe();
      run.picker.stop();
    }
    this.running.clear();
  }

  private start(group: ServerGroup): GroupPicker {
    const o = this.options;
    const run: Running = { definition: JSON.stringify(group), members: this.membersOf(group), picker: null as unknown as GroupPicker, unsubscribe: () => undefined };
    const persisted = this.saved.groups[group.name];
    run.picker = new GroupPicker({
      name: group.name,
      clock: o.clock,
      logger: o.logger,
      config: o.config(),
      probe: o.probe,
      measurements: o.measurements,
      ...(o.reachability ? { reachability: o.reachability } : {}),
      members: () => run.members,
      subscriptions: o.subscriptions,
      apply: async (pick) => {
        await o.tunnel?.switchGroup(group.name, this.routeOf(pick));
      },
      connected: () => o.tunnel?.state().state === 'connected',
      markedInAuto: (id) => this.markedInAuto(id),
      ...(persisted ? { persisted } : {}),
      save: (state) => {
        this.saved.groups[group.name] = state;
        o.save({ groups: { ...this.saved.groups } });
      },
    });
    run.unsubscribe = run.picker.onChange(() => o.changed());
    this.running.set(group.name, run);
    return run.picker;
  }

  private markedInAuto(id: ServerId): boolean {
    const record = this.options.excludedInAuto();
    if (record !== this.autoMarks.of) this.autoMarks = { of: record, ids: new Set(Object.values(record).flat()) };
    return this.autoMarks.ids.has(id);
  }

  private membersOf(group: ServerGroup): ServerId[] {
    const candidates = this.options.servers
      .all()
      .filter((s) => this.options.runsInTunnel(s.id))
      .map((s) => ({ id: s.id, subscriptionId: s.subscriptionId, exitCountry: this.options.status(s.id).ipInfo?.countryCode ?? null }));
    return groupMembers(group.members, candidates);
  }

  private routeOf(pick: ServerId | null): GroupRoute['pick'] {
    if (pick === null) return null;
    return this.options.servers.withUpstream(pick) ?? null;
  }
}
