import type { ServerId } from '../../shared/domain/server';
import type { Clock, TimerHandle } from '../clock';

export interface VerdictBatcherOptions {
  clock: Clock;
  /** The debounce window (the monitor's setting, read at each burst's start). */
  windowMs: () => number;
  /** Whether a server still exists (a verdict of a removed server is not sent). */
  exists: (id: ServerId) => boolean;
  /** Sends the servers whose verdict changed, once per burst. */
  publish: (ids: ServerId[]) => void;
}

/**
 * Verdicts change one server at a time (a round of votes, a test of all): the window hears one
 * message per burst, sent a debounce window after its first change.
 */
export class VerdictBatcher {
  private readonly changed = new Set<ServerId>();
  private timer: TimerHandle | null = null;

  constructor(private readonly options: VerdictBatcherOptions) {}

  note(id: ServerId): void {
    this.changed.add(id);
    this.timer ??= this.options.clock.after(this.options.windowMs(), () => this.flush());
  }

  stop(): void {
    this.timer?.cancel();
    this.timer = null;
    this.changed.clear();
  }

  private flush(): void {
    this.timer = null;
    const ids = [...this.changed].filter((id) => this.options.exists(id));
    this.changed.clear();
    if (ids.length > 0) this.options.publish(ids);
  }
}
