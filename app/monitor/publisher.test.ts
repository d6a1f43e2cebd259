import { describe, expect, it } from 'vitest';
import type { ServerId } from '../../shared/domain/server';
import type { ServerStatus } from '../../shared/domain/status';
import { FakeClock } from '../testing/fake-clock';
import { StatusPublisher } from './publisher';
import { monitorHarness } from './testing/harness';

const RESULT = { definite: true, immediate: false };
const VERDICT = { definite: false, immediate: false };
const AT_ONCE = { definite: true, immediate: true };

/** A publisher on a virtual clock whose statuses are those of `existing`, with what each subscriber heard. */
function publisher(existing: ServerId[] = ['a', 'b', 'c'], windowMs = 500) {
  const clock = new FakeClock(0);
  const build = (id: ServerId) => (existing.includes(id) ? ({ serverId: id, downForNow: true } as ServerStatus) : null);
  const statuses = new StatusPublisher(clock, windowMs, build);
  const heard: { at: number; ids: ServerId[] }[] = [];
  const groups: { at: number; ids: ServerId[]; downForNow: boolean[] }[] = [];
  statuses.subscribe((list) => heard.push({ at: clock.now(), ids: list.map((s) => s.serverId) }));
  statuses.subscribe((list) => groups.push({ at: clock.now(), ids: list.map((s) => s.serverId), downForNow: list.map((s) => s.downForNow) }), { group: true });
  return { clock, statuses, heard, groups };
}

describe('one debouncer for the statuses the window hears', () => {
  it('sends a burst of results and verdicts as one message, a window after its first change', async () => {
    const { clock, statuses, heard } = publisher();
    statuses.changed('a', RESULT);
    await clock.advance(200);
    statuses.changed('b', VERDICT);
    statuses.changed('a', VERDICT);
    await clock.advance(299);
    expect(heard).toEqual([]);
    await clock.advance(1);
    expect(heard).toEqual([{ at: 500, ids: ['a', 'b'] }]);
    statuses.changed('c', VERDICT);
    await clock.advance(500);
    expect(heard).toEqual([
      { at: 500, ids: ['a', 'b'] },
      { at: 1000, ids: ['c'] },
    ]);
  });

  it('tells groups (Auto) only definite results, without the transient down-for-now', async () => {
    const { clock, statuses, groups } = publisher();
    statuses.changed('a', VERDICT);
    statuses.changed('b', RESULT);
    await clock.advance(500);
    expect(groups).toEqual([{ at: 500, ids: ['b'], downForNow: [false] }]);
  });

  it('sends an event-triggered result at once, and leaves it out of the burst', async () => {
    const { clock, statuses, heard } = publisher();
    statuses.changed('a', VERDICT);
    statuses.changed('a', AT_ONCE);
    expect(heard).toEqual([{ at: 0, ids: ['a'] }]);
    await clock.advance(500);
    expect(heard).toHaveLength(1);
  });

  it('leaves out servers removed meanwhile, and sends nothing when none is left', async () => {
    const { clock, statuses, heard } = publisher(['a']);
    statuses.changed('gone', VERDICT);
    await clock.advance(500);
    statuses.changed('a', VERDICT);
    statuses.changed('gone', VERDICT);
    await clock.advance(500);
    expect(heard).toEqual([{ at: 1000, ids: ['a'] }]);
  });

  it('takes a new window from the next burst on', async () => {
    const { clock, statuses, heard } = publisher();
    statuses.setWindow(100);
    statuses.changed('a', VERDICT);
    await clock.advance(100);
    expect(heard).toEqual([{ at: 100, ids: ['a'] }]);
  });

  it('stopped, it sends nothing more', async () => {
    const { clock, statuses, heard } = publisher();
    statuses.changed('a', RESULT);
    statuses.stop();
    await clock.advance(1000);
    expect(heard).toEqual([]);
  });

  it("a monitor's restated server reaches the status subscribers with the burst, not the groups", async () => {
    const h = monitorHarness({ settings: { debounceWindowMs: 300 } });
    h.monitor.restate('b');
    await h.clock.advance(299);
    expect(h.updates).toEqual([]);
    await h.clock.advance(1);
    expect(h.updates.map((u) => ({ at: u.at, ids: u.statuses.map((s) => s.serverId) }))).toEqual([{ at: 300, ids: ['b'] }]);
    expect(h.groupUpdates).toEqual([]);
  });
});
