import type { ServerId } from '../../shared/domain/server';

/**
 * Background work that follows a successful test (IP-info lookups, IPv6 checks): one job per
 * server at a time, at most `limit()` jobs at once, and all of them cut together by `stop()`.
 * Each job gets the signal of the generation it started in; after `stop()` that signal is aborted
 * and the job's result must be dropped (a cut job is not a result).
 */
export class ServerWorkQueue<R extends { serverId: ServerId }> {
  private readonly running = new Map<ServerId, R>();
  private waiting: R[] = [];
  private controller = new AbortController();

  constructor(
    private readonly limit: () => number,
    private readonly work: (request: R, signal: AbortSignal) => Promise<void>,
  ) {}

  /** Whether a job for this server is queued or running. */
  busy(serverId: ServerId): boolean {
    return this.running.has(serverId) || this.waiting.some((r) => r.serverId === serverId);
  }

  /** Queues the request unless its server already has a job; false when it had. */
  add(request: R): boolean {
    if (this.busy(request.serverId)) return false;
    this.waiting.push(request);
    this.pump();
    return true;
  }

  /** The requests queued or running, oldest first (a caller may still mark them). */
  pending(): R[] {
    return [...this.waiting, ...this.running.values()];
  }

  /** Drops queued jobs and cuts running ones. */
  stop(): void {
    this.waiting = [];
    this.controller.abort();
    this.controller = new AbortController();
  }

  private pump(): void {
    const limit = Math.max(1, this.limit());
    while (this.running.size < limit && this.waiting.length > 0) {
      const next = this.waiting.shift() as R;
      this.running.set(next.serverId, next);
      void this.work(next, this.controller.signal).finally(() => {
        this.running.delete(next.serverId);
        this.pump();
      });
    }
  }
}
