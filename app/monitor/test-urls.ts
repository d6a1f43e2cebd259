/**
 * Which of `urls` the tests use (spec/monitor.md "URLs"): the last one that worked, kept across
 * runs in the cache. Cycles move it; every other test reads it.
 */
import type { MonitorSettings } from '../../shared/settings';

export class TestUrls {
  private chosen = 0;

  constructor(private readonly settings: () => MonitorSettings) {}

  /** Index into `urls` of the URL tests use. */
  get index(): number {
    return this.chosen;
  }

  current(): string {
    const urls = this.settings().urls;
    return urls[Math.min(this.chosen, urls.length - 1)] as string;
  }

  /** Tests use `urls[index]` from now on (clamped to the list the settings hold now). */
  use(index: number): void {
    this.chosen = Math.min(index, this.settings().urls.length - 1);
  }
}
