/**
 * "Tests run only while the connection is used" (spec/monitor.md): after `idle_timeout` without
 * traffic testing stops; the next traffic restarts it. One timer, re-armed lazily, so a stream of
 * traffic events costs nothing. An idle timeout of 0 means never idle.
 */
import type { Clock, TimerHandle } from '../clock';

export class ActivityTracker {
  private lastAt = 0;
  private active = false;
  private timer: TimerHandle | null = null;

  constructor(
    private readonly clock: Clock,
    private idleMs: number,
    private readonly onIdle: () => void,
    private readonly onResume: () => void,
  ) {}

  start(): void {
    this.lastAt = this.clock.now();
    this.active = true;
    this.arm();
  }

  stop(): void {
    this.timer?.cancel();
    this.timer = null;
    this.active = false;
  }

  isActive(): boolean {
    return this.active;
  }

  lastActivityAt(): number {
    return this.lastAt;
  }

  setIdleTimeout(ms: number): void {
    this.idleMs = ms;
    if (this.active) this.arm();
  }

  /** Traffic (or a new connection) was seen at `at`. */
  seen(at = this.clock.now()): void {
    if (at > this.lastAt) this.lastAt = at;
    if (!this.active) {
      this.active = true;
      this.arm();
      this.onResume();
    }
  }

  private arm(): void {
    this.timer?.cancel();
    this.timer = null;
    if (this.idleMs <= 0) return;
    const due = this.lastAt + this.idleMs - this.clock.now();
    this.timer = this.clock.after(Math.max(0, due), () => {
      this.timer = null;
      if (!this.active) return;
      if (this.clock.now() - this.lastAt >= this.idleMs) {
        this.active = false;
        this.onIdle();
      } else {
        this.arm();
      }
    });
  }
}
