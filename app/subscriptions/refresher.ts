import { type Clock, repeatAfterEach } from '../clock';
import type { Logger } from '../log/logger';
import { dueForRefresh } from './policy/refresh';
import type { SubscriptionStore } from './store';

/**
 * Fetches subscriptions again when they are due (policy/refresh.ts): a first look shortly after
 * start, then every `checkEveryMs`, one subscription at a time. A failed update keeps the old list
 * (the store's rule); the refresher only decides when.
 */
export class SubscriptionRefresher {
  private cancelRepeat: (() => void) | null = null;
  private stopped = false;

  constructor(
    private readonly store: Pick<SubscriptionStore, 'list' | 'update'>,
    private readonly clock: Clock,
    private readonly logger: Logger,
    private readonly checkEveryMs = 10 * 60_000,
    private readonly firstCheckMs = 30_000,
  ) {}

  start(): void {
    this.stopped = false;
    this.cancelRepeat?.();
    this.cancelRepeat = repeatAfterEach(this.clock, this.firstCheckMs, this.checkEveryMs, () => this.refreshDue());
  }

  stop(): void {
    this.stopped = true;
    this.cancelRepeat?.();
    this.cancelRepeat = null;
  }

  /** Updates every due subscription now; resolves when done. */
  async refreshDue(): Promise<void> {
    for (const subscription of dueForRefresh(this.store.list(), this.clock.now())) {
      if (this.stopped) return;
      this.logger.info('SUBSCRIPTIONS', `"${subscription.name}" is due: updating`);
      await this.store.update(subscription.id).catch((error: unknown) => {
        this.logger.warn('SUBSCRIPTIONS', `"${subscription.name}": ${error instanceof Error ? error.message : String(error)}`);
      });
    }
  }
}
