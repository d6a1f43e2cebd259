/**
 * What every failover trial shares: bringing the world back to a healthy, settled state before a
 * fault, and accounting for the probes and connections a trial spent.
 */
import type { AutoDecision } from '../../../shared/domain/auto';
import type { LabCounters, LabServerInfo } from '../../lab';
import type { Random } from '../../../app/testing/random';
import { pollOrFail } from '../../../app/testing/poll';
import { type FailoverWorld, sleep } from './world';
import { type Lineup, casesFor, lineupFor, marksLeaving } from './cases';

/** Auto's cooldowns (spec/auto.md "Limits"): a fault must land after them to meet a ready Auto. */
const AFTER_SWITCH_MS = 5000;
const AFTER_CHECK_MS = 15_000;

export interface Settled {
  /** The engine server id Auto is on. */
  serverId: string;
  lab: LabServerInfo;
}

/** Probes and connections spent in a trial's window. */
export interface Spent {
  /** Servers Auto's checks asked to probe (the `probe` lists of its `check` lines, neighbours included). */
  auto_probes: number;
  /** Checks Auto started (the neighbour phase of a check not counted again). */
  auto_checks: number;
  /** TCP dials by the prober cores (Auto's probes, the monitor's event tests, reachability): probe connections. */
  prober_dials: number;
  /** TCP dials by the tunnel core: the user's traffic. */
  tunnel_dials: number;
  /** Connections the lab's relays accepted (every server). */
  lab_connections: number;
  /** lab_connections − prober_dials − tunnel_dials: hops the cores did not dial themselves (a chained probe's second hop). */
  unattributed_connections: number;
}

export class TrialKit {
  /** Lab servers currently faulted by the bench. */
  private readonly faulted = new Set<string>();
  private offline = false;

  constructor(
    readonly world: FailoverWorld,
    private readonly random: Random,
    /** Waited before every fault on top of the seeded pause (`--pause-before-fault-ms`). */
    private readonly extraPauseMs = 0,
  ) {}

  async setFault(labId: string, fault: 'blackhole' | 'reset'): Promise<void> {
    this.faulted.add(labId);
    await this.world.lab.setFault(labId, { fault });
  }

  /** Lifts a fault the bench set, mid-trial. */
  async lift(labId: string): Promise<void> {
    this.faulted.delete(labId);
    await this.world.lab.setFault(labId, { fault: 'none' });
  }

  async setNetwork(state: 'online' | 'offline'): Promise<void> {
    this.offline = state === 'offline';
    await this.world.lab.setNetwork(state);
  }

  /**
   * Every fault lifted, then Auto turned off and on again for a subscription (A by default): a
   * fresh episode (no switch allowance used, no return candidate, no widening; Auto takes the
   * subscription's best score), the tunnel on Auto's server with traffic answered through it, and
   * Auto's cooldowns over. Then a seeded pause of 0–1 s so faults land at every phase of the 250 ms
   * traffic samples.
   * On A, `lineup` (cases.ts) says which servers Auto may take while it is turned on and which
   * from then on; without one, A's plain servers (the modern ones marked), as the bench always ran.
   */
  async settle(subscriptionIndex = 0, lineup?: Lineup): Promise<Settled> {
    const { world } = this;
    for (const id of this.faulted) await world.lab.setFault(id, { fault: 'none' });
    this.faulted.clear();
    if (this.offline) await this.setNetwork('online');
    await world.engine.setAuto({ subscriptionId: null });
    const onA = subscriptionIndex === 0 && world.lineupServers.some((s) => s.kind !== 'plain');
    const arranged = onA ? (lineup ?? lineupFor(casesFor(['plain'])[0]!, world.lineupServers)) : null;
    if (arranged) await this.mark(marksLeaving(world.lineupServers, arranged.settleUnmarked));
    const toggledAt = Date.now();
    await world.engine.setAuto({ subscriptionId: world.subscriptionIds[subscriptionIndex]! });
    const settled: { on: Settled | null } = { on: null };
    await pollOrFail(
      "Auto settled on a server with traffic through it",
      async () => {
        const s = await world.snapshot();
        if (s.connection.state === 'failed' && s.connection.error) await this.reconnectAfterFailedStart(s.connection.error);
        const id = s.connection.state === 'connected' ? s.connection.serverId : null;
        if (!id) return false;
        const lab = world.labOf(id);
        if (!world.traffic.log.some((r) => r.startedAt >= toggledAt && r.exitIp === lab.exitIp)) return false;
        settled.on = { serverId: id, lab };
        return true;
      },
      60_000,
      200,
    );
    // Unmarking never moves Auto: it stays on the server it settled on.
    if (arranged && settled.on) await this.mark(marksLeaving(world.lineupServers, arranged.trialUnmarked(settled.on.serverId)));
    const readyAt = cooldownEnd(world.decisions) + 300;
    if (readyAt > Date.now()) await sleep(readyAt - Date.now());
    await sleep(Math.round(this.random() * 1000) + this.extraPauseMs);
    const now = await world.snapshot();
    if (!settled.on || now.connection.serverId !== settled.on.serverId) return this.settle(subscriptionIndex, lineup);
    return settled.on;
  }

  /**
   * A tunnel core that did not start (on a loaded machine another program can take a port the
   * core was given a moment before: "address already in use") leaves the connection failed, and
   * nothing in the app starts it again. The bench connects again, as a user would, and keeps what
   * happened in `startFailures` for the JSON.
   */
  private async reconnectAfterFailedStart(error: string): Promise<void> {
    this.startFailures.push({ at: new Date().toISOString(), error });
    await this.world.engine.connect({}).catch(() => undefined);
  }

  /** Tunnel starts that failed and the bench connected again after (see reconnectAfterFailedStart). */
  readonly startFailures: { at: string; error: string }[] = [];

  /** The user's marks on A: exactly these servers. */
  private async mark(serverIds: string[]): Promise<void> {
    await this.world.engine.setExcluded({ subscriptionId: this.world.subscriptionIds[0]!, serverIds });
  }

  counters(): Promise<LabCounters> {
    return this.world.lab.counters();
  }

  /** What was spent between two counter readings taken at `from` and `to`. */
  spent(from: number, to: number, before: LabCounters, after: LabCounters): Spent {
    const checks = this.decisionsBetween(from, to).filter((d): d is Extract<AutoDecision, { type: 'check' }> => d.type === 'check');
    const dials = this.world.dials.between(from, to);
    const prober = dials.filter((d) => d.core === 'prober').length;
    const tunnel = dials.filter((d) => d.core === 'tunnel').length;
    const connections = Object.keys(after.servers).reduce((sum, id) => sum + (after.servers[id]!.connections - (before.servers[id]?.connections ?? 0)), 0);
    return {
      auto_probes: checks.reduce((sum, c) => sum + c.probe.length, 0),
      auto_checks: checks.filter((c) => c.trigger !== 'neighbour-sub').length,
      prober_dials: prober,
      tunnel_dials: tunnel,
      lab_connections: connections,
      unattributed_connections: connections - prober - tunnel,
    };
  }

  decisionsBetween(from: number, to: number): AutoDecision[] {
    return this.world.decisions.filter((d) => d.at >= from && d.at <= to).sort((a, b) => a.at - b.at);
  }

  /** Lifts whatever the bench left faulted (the world is stopped right after). */
  async restore(): Promise<void> {
    for (const id of this.faulted) await this.world.lab.setFault(id, { fault: 'none' }).catch(() => undefined);
    this.faulted.clear();
    if (this.offline) await this.setNetwork('online').catch(() => undefined);
  }
}

/** When Auto's last cooldown ends: 5 s after its last switch, 15 s after its last check that did not switch. */
export function cooldownEnd(decisions: readonly AutoDecision[]): number {
  let end = 0;
  for (const d of decisions) {
    if (d.type === 'switch') end = Math.max(end, d.at + AFTER_SWITCH_MS);
    else if (d.type === 'stay' || d.type === 'network-lost' || d.type === 'rate-limited') end = Math.max(end, d.at + AFTER_CHECK_MS);
  }
  return end;
}
