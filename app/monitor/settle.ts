/**
 * "All servers are retested 2 s after the last network change" (spec/monitor.md): the quiet
 * period after a change, which tests cut by the change wait for before they run again.
 */
import type { Clock, TimerHandle } from '../clock';
import { NETWORK_SETTLE_MS } from './policy/timing';

export class NetworkSettling {
  private timer: TimerHandle | null = null;
  private waiters: (() => void)[] = [];

  constructor(private readonly clock: Clock) {}

  /** The network changed: the quiet period starts again; `onSettled` runs at its end. */
  changed(onSettled: () => void): void {
    this.timer?.cancel();
    this.timer = this.clock.after(NETWORK_SETTLE_MS, () => {
      this.timer = null;
      this.release();
      onSettled();
    });
  }

  /** Resolves once the network has been quiet for 2 s (at once when it is). */
  settled(): Promise<void> {
    if (!this.timer) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  /** Shutting down: nobody waits any longer, and nothing runs at the end. */
  stop(): void {
    this.timer?.cancel();
    this.timer = null;
    this.release();
  }

  private release(): void {
    for (const resolve of this.waiters.splice(0)) resolve();
  }
}
