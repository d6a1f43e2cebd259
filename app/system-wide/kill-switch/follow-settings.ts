/**
 * The kill switch as the settings say (the engine's part of it): on, it follows the server list —
 * every server of every subscription, so an Auto switch never waits for the rules — and off only
 * when the user turns it off. Found in force at start, it is reported (the window offers "turn
 * off"), never undone by itself.
 */
import type { Logger } from '../../log/logger';
import { SerialQueue } from '../../process/serial-queue';
import type { KillSwitch } from './kill-switch';

const TAG = 'KILLSWITCH';

export interface KillSwitchWanted {
  killSwitch: boolean;
  killSwitchAllowLan: boolean;
}

export interface KillSwitchFollowerOptions {
  killSwitch: KillSwitch;
  wanted: () => KillSwitchWanted;
  servers: () => readonly { address: string }[];
  logger: Logger;
  /** Why it could not be put in force, or taken off (null: it is as the settings say). */
  onProblem: (detail: string | null) => void;
}

export class KillSwitchFollower {
  private readonly queue = new SerialQueue();

  private constructor(private readonly o: KillSwitchFollowerOptions) {}

  /** Reads what an earlier run left (the sentence to show, or null), then follows the settings. */
  static async start(o: KillSwitchFollowerOptions): Promise<{ follower: KillSwitchFollower; left: string | null; since: number | null }> {
    const left = await o.killSwitch.load();
    const follower = new KillSwitchFollower(o);
    const since = o.killSwitch.state().since;
    follower.follow();
    return { follower, left, since };
  }

  /** The settings or the server list changed: bring the rules in step (one change at a time). */
  follow(): Promise<void> {
    return this.queue.run(async () => {
      const wanted = this.o.wanted();
      try {
        if (wanted.killSwitch) await this.o.killSwitch.engage(this.o.servers(), wanted.killSwitchAllowLan);
        else if (this.o.killSwitch.state().on) await this.o.killSwitch.off();
        this.o.onProblem(null);
      } catch (error) {
        const detail = error instanceof Error ? error.message : String(error);
        this.o.logger.error(TAG, detail);
        this.o.onProblem(detail);
      }
    });
  }

  /** What is in force now. */
  state(): ReturnType<KillSwitch['state']> {
    return this.o.killSwitch.state();
  }

  /** Resolves once the changes asked for so far are made (the CLI reports after them). */
  settled(): Promise<void> {
    return this.queue.run(async () => undefined);
  }

  /** The app is stopping: the helper goes, the rules stay. */
  async stop(): Promise<void> {
    await this.queue.run(() => this.o.killSwitch.close());
  }
}
