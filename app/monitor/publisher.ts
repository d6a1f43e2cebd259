/**
 * Delivers status changes to subscribers: one update per burst after `debounce_window`, except
 * event-triggered results, which go out at once. Group subscribers (Auto) see only definite
 * results: never the transient "down for now" of a staged test, and no update when only such a
 * flag changed.
 */
import type { ServerId } from '../../shared/domain/server';
import type { ServerStatus } from '../../shared/domain/status';
import type { Clock, TimerHandle } from '../clock';
import { type ListenerErrorSink, Signal } from '../events';

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
  private readonly ui: Signal<ServerStatus[]>;
  private readonly groups: Signal<ServerStatus[]>;
  private uiPending = new Set<ServerId>();
  private groupPending = new Set<ServerId>();
  private timer: TimerHandle | null = null;

  constructor(
    private readonly clock: Clock,
    private windowMs: number,
    private readonly build: (id: ServerId) => ServerStatus | null,
    onListenerError?: ListenerErrorSink,
  ) {
    this.ui = new Signal('status', onListenerError);
    this.groups = new Signal('group status', onListenerError);
  }

  setWindow(ms: number): void {
    this.windowMs = ms;
  }

  subscribe(listener: StatusListener, options: SubscribeOptions = {}): () => void {
    return (options.group ? this.groups : this.ui).on(listener);
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

  private deliver(listeners: Signal<ServerStatus[]>, ids: ServerId[], group: boolean): void {
    if (!listeners.observed) return;
    const statuses = ids.flatMap((id) => {
      const status = this.build(id);
      if (!status) return [];
      return [group ? { ...status, downForNow: false } : status];
    });
    if (statuses.length === 0) return;
    listeners.emit(statuses);
  }
}
