/**
 * The host's high-rate streams, applied once per frame. During "Test all" the host sends a
 * `testProgress` event per result and a `statuses` event per batch of results: thousands of
 * messages. Applied one by one, each copied the statuses record (5,000 keys) or ran every
 * subscriber of the store, many times per frame, though nobody sees more than one frame. So they
 * are merged as they come (the latest status of each server, the latest progress) and applied
 * together in one store update before the next frame: a late answer still replaces "down for
 * now" within that frame.
 */
import type { ServerId } from '../../../shared/domain/server';
import type { ListStatus, TestProgress } from '../../../shared/ipc/contract';
import type { FrameScheduler } from './frames';
import type { AppState, AppStore } from './types';

export interface IncomingBatch {
  /** Queues status patches (a later patch of a server replaces an earlier one). */
  statuses(changed: readonly ListStatus[]): void;
  /** Queues the latest test progress. */
  progress(progress: TestProgress): void;
  /**
   * Applies what is queued now. Called before a change that must land after it (an action's own
   * result, an optimistic update), so the order in which things happened is kept.
   */
  flush(): void;
  /** Forgets what is queued: a snapshot that arrived after it replaces it. */
  drop(): void;
}

/** `statuses` with `changed` laid over it: one copy of the record, however many changed. */
export function withStatuses(statuses: Record<ServerId, ListStatus>, changed: Iterable<ListStatus>): Record<ServerId, ListStatus> {
  const next = { ...statuses };
  for (const status of changed) next[status.serverId] = status;
  return next;
}

export function createIncomingBatch(store: Pick<AppStore, 'getState' | 'setState'>, frames: FrameScheduler): IncomingBatch {
  let statuses = new Map<ServerId, ListStatus>();
  let progress: TestProgress | null = null;
  let scheduled = false;

  const flush = () => {
    const update: Partial<AppState> = {};
    if (statuses.size > 0) update.statuses = withStatuses(store.getState().statuses, statuses.values());
    if (progress) update.testProgress = progress;
    statuses = new Map();
    progress = null;
    if (update.statuses || update.testProgress) store.setState(update);
  };
  const schedule = () => {
    if (scheduled) return;
    scheduled = true;
    frames.request(() => {
      scheduled = false;
      flush();
    });
  };

  return {
    statuses(changed) {
      if (changed.length === 0) return;
      for (const status of changed) statuses.set(status.serverId, status);
      schedule();
    },
    progress(next) {
      progress = next;
      schedule();
    },
    flush,
    drop() {
      statuses = new Map();
      progress = null;
    },
  };
}
