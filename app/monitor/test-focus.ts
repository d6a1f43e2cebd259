/**
 * The servers in focus for testing (policy/test-budget.ts): the current server, Auto's next
 * candidates, and the servers the user opened within the last two intervals (long enough for a
 * transfer test to come and be read; then they go back to delay probes only).
 */
import type { ServerId } from '../../shared/domain/server';
import type { MonitorSettings } from '../../shared/settings';
import type { Clock } from '../clock';
import { mayDelayTest, mayLookUp, mayTransferTest, nextCandidates, type TestAllowance, type TestFocus } from './policy/test-budget';
import type { TestTrafficLedger } from './test-traffic';

export interface TestFocusDeps {
  clock: Clock;
  settings: () => MonitorSettings;
  /** What groups have selected (Auto's current server, the connected one). */
  selections: () => readonly ServerId[];
  /** Auto's queue of the current subscription, in order (empty when Auto is off). */
  queue: () => readonly ServerId[];
  ledger: Pick<TestTrafficLedger, 'capped'>;
  /**
   * Servers that came into focus (a new current server, a new candidate, one opened): they get
   * their transfer test now when their delay answered in this run, rather than an interval later.
   */
  onGained?: (ids: ServerId[]) => void;
}

/** Auto's queue is sorted anew on each read: one read a second is enough for every answer of a cycle. */
const FOCUS_REUSE_MS = 1000;

export class TestFocusKeeper {
  private readonly opened = new Map<ServerId, number>();
  private cached: { at: number; focus: TestFocus } | null = null;
  private inFocus = new Set<ServerId>();

  constructor(private readonly deps: TestFocusDeps) {}

  /** The user opened a server (its details): it is in focus for two intervals. */
  open(id: ServerId): void {
    this.opened.set(id, this.deps.clock.now());
    this.cached = null;
  }

  focus(): TestFocus {
    const { clock, settings } = this.deps;
    const current = this.deps.selections();
    // A new current server (a connection, a switch) is read at once, not a second later.
    const sameCurrent = (ids: readonly ServerId[]) => ids.length === current.length && ids.every((id, i) => id === current[i]);
    if (this.cached && clock.now() - this.cached.at < FOCUS_REUSE_MS && sameCurrent(this.cached.focus.current)) return this.cached.focus;
    const keepMs = 2 * settings().intervalMs;
    for (const [id, at] of this.opened) if (clock.now() - at > keepMs) this.opened.delete(id);
    const focus = { current, candidates: nextCandidates(this.deps.queue(), current[0] ?? null, settings().transferTestCandidates), opened: new Set(this.opened.keys()) };
    this.cached = { at: clock.now(), focus };
    const now = new Set([...focus.current, ...focus.candidates, ...focus.opened]);
    const gained = [...now].filter((id) => !this.inFocus.has(id));
    this.inFocus = now;
    if (gained.length > 0) this.deps.onGained?.(gained);
    return focus;
  }

  /**
   * The selection changed (a connection came up, Auto switched): the focus is read now, so a new
   * current server whose delay answered in this run gets its transfer test at once instead of
   * whenever a test next happens to read the focus.
   */
  selectionChanged(): void {
    this.focus();
  }

  /** The servers of a cycle's list that may have delay probes now (all of them under the cap). */
  delayTargets = (ids: readonly ServerId[]): ServerId[] => {
    const focus = this.focus();
    const allowance = this.allowance();
    return ids.filter((id) => mayDelayTest(id, focus, allowance));
  };

  allowance(): TestAllowance {
    return { everyServer: this.deps.settings().transferTestEveryServer, capped: this.deps.ledger.capped() };
  }

  mayTransferTest = (id: ServerId): boolean => mayTransferTest(id, this.focus(), this.allowance());

  mayLookUp = (): boolean => mayLookUp(this.allowance());

  capped = (): boolean => this.deps.ledger.capped();
}
