import type { RuleSet } from '../../../shared/rule-sets';
import { type Clock, repeatAfterEach } from '../../clock';
import type { Logger } from '../../log/logger';
import { dueForUpdate } from './policy/update';
import type { RuleSetStore } from './store';

/**
 * Fetches rule sets again when they are due (policy/update.ts): a first look shortly after start,
 * then every `checkEveryMs`, one set at a time; `now()` asks at once (a set just chosen). A failed
 * update keeps the copy in force (the store's rule); the refresher only decides when.
 */
export class RuleSetRefresher {
  private cancelRepeat: (() => void) | null = null;
  private stopped = false;
  private running: Promise<void> | null = null;

  constructor(
    private readonly store: Pick<RuleSetStore, 'update' | 'updateRecords'>,
    private readonly sets: () => readonly RuleSet[],
    private readonly clock: Clock,
    private readonly logger: Logger,
    private readonly checkEveryMs = 10 * 60_000,
    private readonly firstCheckMs = 20_000,
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

  /** Updates every due set now; resolves when done (a run already under way is joined). */
  refreshDue(): Promise<void> {
    this.running ??= this.run().finally(() => (this.running = null));
    return this.running;
  }

  private async run(): Promise<void> {
    for (const set of dueForUpdate(this.sets(), this.store.updateRecords(), this.clock.now())) {
      if (this.stopped) return;
      this.logger.info('ROUTING', `rule set "${set.name}" is due: updating`);
      await this.store.update(set).catch((error: unknown) => this.logger.warn('ROUTING', `rule set "${set.name}": ${String(error)}`));
    }
  }
}
