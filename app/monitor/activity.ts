/**
 * "Tests run only while the connection is used" (spec/monitor.md): after `idle_timeout` without
 * traffic testing stops; the next traffic restarts it. One timer, re-armed lazily, so a stream of
 * traffic events costs nothing. An idle timeout of 0 means never idle.
 *
 * It also holds whether the monitor runs at all (between `start` and `stop`): background testing
 * runs while both hold. Traffic seen while stopped still counts as use, but tests nothing.
 */
import type { Clock, TimerHandle } from '../clock';
import { type ListenerErrorSink, Signal } from '../events';

export class ActivityTracker {
  /** No traffic for the idle timeout: background testing stops. */
  readonly idled: Signal<void>;
  /** Traffic again after being idle: background testing resumes. */
  readonly resumed: Signal<void>;
  private started = false;
  private lastAt = 0;
  private active = false;
  private timer: TimerHandle | null = null;

  constructor(
    private readonly clock: Clock,
    private idleMs: number,
    onListenerError?: ListenerErrorSink,
  ) {
    this.idled = new Signal('idle', onListenerError);
    this.resumed = new Signal('traffic resumed', onListenerError);
  }

  /** Between `start` and `stop`. */
  get running(): boolean {
    return this.started;
  }

  start(): void {
    this.started = true;
    this.lastAt = this.clock.now();
    this.active = true;
    this.arm();
  }

  stop(): void {
    this.started = false;
    this.timer?.cancel();
    this.timer = null;
    this.active = false;
  }

  /** Whether background testing runs now: started, and not idle. */
  isActive(): boolean {
    return this.started && this.active;
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
      this.resumed.emit();
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
        this.idled.emit();
      } else {
        this.arm();
      }
    });
  }
}
