/**
 * Runs the quick look at the network (policy/network-look.ts): feeds it the live traffic and the
 * tunnel's and the OS's news, asks its witnesses through Auto's probe port (not recorded, joined
 * with a probe in flight), and says when the silence it keeps begins or ends. Each witness gets
 * exactly its wait: an answer after it is, for the window, no answer in time.
 */
import type { TrafficSample } from '../../shared/domain/connection';
import type { Clock, TimerHandle } from '../clock';
import type { Logger } from '../log/logger';
import { LOOK_IDLE, type LookCommand, type LookEvent, type LookProbe, type LookState, lookStep } from './policy/network-look';
import type { AutoWorld } from './policy/world';
import type { AutoProbePort } from './ports';

export interface NetworkLookOptions {
  clock: Clock;
  logger: Logger;
  probe: AutoProbePort;
  world: Pick<AutoWorld, 'subscriptions' | 'measurements'>;
  current: () => string | null;
  stallThresholdMs: () => number;
  /** The silence began or ended. */
  changed: () => void;
}

export class NetworkLook {
  private state: LookState = LOOK_IDLE;

  constructor(private readonly options: NetworkLookOptions) {}

  /** Nothing has answered since this time (epoch ms), or null. */
  silentSince(): number | null {
    return this.state.silentSince;
  }

  traffic(sample: TrafficSample): void {
    this.dispatch({ type: 'traffic', sample });
  }
  /** A probe through some server answered. */
  answered(): void {
    if (this.state.silentSince !== null || this.state.look !== null) this.dispatch({ type: 'answered' });
  }
  networkChanged(state: 'none' | 'up'): void {
    this.dispatch({ type: 'os-network', state });
  }
  tunnel(connected: boolean): void {
    this.dispatch({ type: 'tunnel', connected });
  }

  private dispatch(event: LookEvent): void {
    const before = this.state;
    const { clock, current, stallThresholdMs, world } = this.options;
    const { state, commands } = lookStep(before, event, clock.now(), { ...world, current: current(), stallThresholdMs: stallThresholdMs() });
    this.state = state;
    for (const command of commands) this.ask(command);
    if (before.silentSince !== state.silentSince) {
      const words = state.silentSince === null ? 'the network answers again' : state.silentBy === 'os' ? 'the OS reports no network' : 'no server of any subscription answers: the network looks lost';
      this.options.logger.info('AUTO', `network look: ${words}`);
      this.options.changed();
    }
  }

  private ask(command: LookCommand): void {
    this.options.logger.debug('AUTO', `network look ${command.lookId}: asking ${command.probes.map((p) => `${p.serverId} (${p.waitMs} ms)`).join(', ')}`);
    for (const probe of command.probes) void this.witness(command.lookId, probe);
  }

  private async witness(lookId: number, { serverId, waitMs }: LookProbe): Promise<void> {
    const guard: { timer: TimerHandle | null } = { timer: null };
    const late = new Promise<boolean>((resolve) => {
      guard.timer = this.options.clock.after(waitMs, () => resolve(false));
    });
    const answer = this.options.probe.probe(serverId, waitMs).then(
      (result) => result.delayMs !== null,
      () => false,
    );
    const answered = await Promise.race([answer, late]);
    guard.timer?.cancel();
    this.dispatch({ type: 'witness', lookId, serverId, answered });
  }
}
