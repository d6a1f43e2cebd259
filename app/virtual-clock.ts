import type { Clock, TimerHandle } from './clock';

interface Pending {
  at: number;
  seq: number;
  callback: () => void;
  cancelled: boolean;
}

/**
 * A clock that only moves when told to (the simulator's time, and every test's). `advance(ms)` fires every timer that falls due, in time
 * order, letting promise callbacks settle between timers so async runtimes behave as they would
 * under real time.
 */
export class VirtualClock implements Clock {
  private current: number;
  private seq = 0;
  private pending: Pending[] = [];

  constructor(start = Date.UTC(2026, 0, 1)) {
    this.current = start;
  }

  now(): number {
    return this.current;
  }

  after(ms: number, callback: () => void): TimerHandle {
    const entry: Pending = { at: this.current + Math.max(0, ms), seq: this.seq++, callback, cancelled: false };
    this.pending.push(entry);
    return { cancel: () => void (entry.cancelled = true) };
  }

  /** Timers still waiting (for assertions such as "nothing scheduled while idle"). */
  pendingCount(): number {
    return this.pending.filter((p) => !p.cancelled).length;
  }

  async advance(ms: number): Promise<void> {
    const target = this.current + ms;
    for (;;) {
      await flushMicrotasks();
      const next = this.nextDue(target);
      if (!next) break;
      this.current = next.at;
      this.pending = this.pending.filter((p) => p !== next);
      next.callback();
    }
    this.current = target;
    await flushMicrotasks();
  }

  /** Advances to the next timer (or by `max` when none falls due sooner). */
  async advanceToNext(max = 3_600_000): Promise<void> {
    const next = this.nextDue(this.current + max);
    await this.advance(next ? next.at - this.current : max);
  }

  private nextDue(limit: number): Pending | undefined {
    this.pending = this.pending.filter((p) => !p.cancelled);
    let best: Pending | undefined;
    for (const p of this.pending) {
      if (p.at > limit) continue;
      if (!best || p.at < best.at || (p.at === best.at && p.seq < best.seq)) best = p;
    }
    return best;
  }
}

/** Lets queued promise callbacks (and the callbacks they queue) run. */
export async function flushMicrotasks(rounds = 20): Promise<void> {
  for (let i = 0; i < rounds; i++) await Promise.resolve();
  await new Promise<void>((resolve) => setImmediate(resolve));
}
