/**
 * Delivers status changes to subscribers: one update per burst after `debounce_window`, except
 * event-triggered results, which go out at once. Group subscribers (Auto) see only definite
 * results: never the transient "down for now" of a staged test, and no update when only such a
 * flag changed.
 */
import type { ServerId } from '../../shared/domain/server';
import type { ServerStatus } from '../../shared/domain/status';
import type { Clock, TimerHandle } from '../clock';

export type StatusListener = (statuses: ServerStatus[]) => void;

export interface SubscribeOptions {
  /** A group (Auto): definite results only. */
  group?: boolean;
}

export interface ChangeKind {
  /** The definite result changed (a test result, IP info, a measurement), not only a transient flag. */
  definite: boolean;
  /** Deliver now, without waiting for the debounce window. */
  immediate: boolean;
}

export class StatusPublisher {
  private ui = new Set<StatusListener>();
  private groups = new Set<StatusListener>();
  private uiPending = new Set<ServerId>();
  private groupPending = new Set<ServerId>();
  private timer: TimerHandle | null = null;

  constructor(
    private readonly clock: Clock,
    private windowMs: number,
    private readonly build: (id: ServerId) => ServerStatus | null,
    private readonly onListenerError: (error: unknown) => void = () => undefined,
  ) {}

  setWindow(ms: number): void {
    this.windowMs = ms;
  }

  subscribe(listener: StatusListener, options: SubscribeOptions = {}): () => void {
    const set = options.group ? this.groups : this.ui;
    set.add(listener);
    return () => set.delete(listener);
  }

  changed(id: ServerId, kind: ChangeKind): void {
    if (kind.immediate) {
      this.uiPending.delete(id);
      this.deliver(this.ui, [id], false);
      if (kind.definite || this.groupPending.has(id)) {
        this.groupPending.delete(id);
        this.deliver(this.groups, [id], true);
      }
      return;
    }
    this.uiPending.add(id);
    if (kind.definite) this.groupPending.add(id);
    this.timer ??= this.clock.after(this.windowMs, () => this.flush());
  }

  /** Delivers everything pending now. */
  flush(): void {
    this.timer?.cancel();
    this.timer = null;
    const ui = [...this.uiPending];
    const groups = [...this.groupPending];
    this.uiPending.clear();
    this.groupPending.clear();
    if (ui.length > 0) this.deliver(this.ui, ui, false);
    if (groups.length > 0) this.deliver(this.groups, groups, true);
  }

  stop(): void {
    this.timer?.cancel();
    this.timer = null;
    this.uiPending.clear();
    this.groupPending.clear();
  }

  private deliver(listeners: Set<StatusListener>, ids: ServerId[], group: boolean): void {
    if (listeners.size === 0) return;
    const statuses = ids.flatMap((id) => {
      const status = this.build(id);
      if (!status) return [];
      return [group ? { ...status, downForNow: false } : status];
    });
    if (statuses.length === 0) return;
    for (const listener of [...listeners]) {
      try {
        listener(statuses);
      } catch (error) {
        this.onListenerError(error);
      }
    }
  }
}
