import { describe, expect, it } from 'vitest';
import { sampleSnapshot } from '../testing/sample-world';
import { storeWith } from '../testing/store';
import type { GroupPickSnapshot, TimelineEntry } from '../../../shared/domain/auto';
import { exclusionLock, GROUP_TIMELINE_KEPT, selectAutoOn, selectExcludedIds, TIMELINE_KEPT } from './auto';

const NOW = 1_000_000;

describe('auto slice', () => {
  it('turns Auto on for a subscription, and off when it is already on for it', async () => {
    const { store, client } = await storeWith(sampleSnapshot(NOW));
    expect(selectAutoOn(store.getState(), 'A')).toBe(true);
    await store.getState().toggleAuto('B');
    expect(client.callsTo('setAuto')).toEqual([{ subscriptionId: 'B' }]);
    expect(selectAutoOn(store.getState(), 'B')).toBe(true);
    expect(selectAutoOn(store.getState(), 'A')).toBe(false); // one at a time
    await store.getState().toggleAuto('B');
    expect(client.callsTo('setAuto').at(-1)).toEqual({ subscriptionId: null });
    expect(store.getState().auto.subscriptionId).toBeNull();
  });

  it('sends the marks and takes the host’s answer', async () => {
    const { store, client } = await storeWith(sampleSnapshot(NOW));
    expect(selectExcludedIds(store.getState(), 'A')).toEqual(['ir']);
    const result = await store.getState().setExcluded('A', ['ir', 'de']);
    expect(result.ok).toBe(true);
    expect(client.callsTo('setExcluded')).toEqual([{ subscriptionId: 'A', serverIds: ['ir', 'de'] }]);
    expect(selectExcludedIds(store.getState(), 'A')).toEqual(['ir', 'de']);
    expect(selectExcludedIds(store.getState(), 'B')).toEqual([]);
  });

  it('reports a refused exclusion inline (the dialog shows it), not as a notice', async () => {
    const { store, client } = await storeWith(sampleSnapshot(NOW));
    client.failNext('setExcluded', 'the last unmarked server cannot be marked');
    const result = await store.getState().setExcluded('A', ['fi', 'nl', 'de', 'ir', 'us', 'jp']);
    expect(result).toEqual({ ok: false, error: 'the last unmarked server cannot be marked' });
    expect(store.getState().notices).toEqual([]);
  });

  it('follows the host’s auto events', async () => {
    const { store, client } = await storeWith(sampleSnapshot(NOW));
    client.emit('auto', { ...client.snapshot.auto, returnCandidate: 'fi', networkLostUntil: NOW + 15_000 });
    expect(store.getState().auto).toMatchObject({ returnCandidate: 'fi', networkLostUntil: NOW + 15_000 });
  });
});

describe('the timelines a window keeps', () => {
  const entries = (n: number): TimelineEntry[] => Array.from({ length: n }, (_, i) => ({ type: 'stay', at: NOW + i, id: 'fi', reason: 'current-answered', carrying: 'fi' }));

  it('keeps the newest TIMELINE_KEPT entries of a host that sends more, in every way Auto reaches it', async () => {
    const { store, client } = await storeWith(sampleSnapshot(NOW));
    client.emit('auto', { ...client.snapshot.auto, timeline: entries(TIMELINE_KEPT * 2) });
    const kept = store.getState().auto.timeline;
    expect(kept).toHaveLength(TIMELINE_KEPT);
    expect(kept[0]?.at).toBe(NOW + TIMELINE_KEPT);
    expect(kept.at(-1)?.at).toBe(NOW + TIMELINE_KEPT * 2 - 1);
    store.getState().setAutoSnapshot({ ...client.snapshot.auto, timeline: entries(TIMELINE_KEPT + 1) });
    expect(store.getState().auto.timeline).toHaveLength(TIMELINE_KEPT);
  });

  it('keeps the same newest entries from the first snapshot, before any event', async () => {
    const snapshot = sampleSnapshot(NOW);
    const { store } = await storeWith({ ...snapshot, auto: { ...snapshot.auto, timeline: entries(TIMELINE_KEPT + 5) } });
    expect(store.getState().auto.timeline).toHaveLength(TIMELINE_KEPT);
    expect(store.getState().auto.timeline[0]?.at).toBe(NOW + 5);
  });

  it('keeps each group’s newest GROUP_TIMELINE_KEPT entries and leaves a short timeline as it is', async () => {
    const { store, client } = await storeWith(sampleSnapshot(NOW));
    const group = (name: string, n: number): GroupPickSnapshot => ({
      name,
      pick: 'fi',
      members: 2,
      memberIds: ['fi', 'de'],
      state: 'on',
      reason: null,
      excluded: [],
      excludedInAuto: [],
      returnCandidate: null,
      networkLostUntil: null,
      timeline: entries(n),
    });
    const short = entries(3);
    client.emit('auto', { ...client.snapshot.auto, timeline: short, groups: [group('US', GROUP_TIMELINE_KEPT * 4), group('AI', 2)] });
    const auto = store.getState().auto;
    expect(auto.timeline).toBe(short);
    expect(auto.groups?.map((g) => g.timeline.length)).toEqual([GROUP_TIMELINE_KEPT, 2]);
    expect(auto.groups?.[0]?.timeline.at(-1)?.at).toBe(NOW + GROUP_TIMELINE_KEPT * 4 - 1);
  });
});

describe('exclusionLock: the last unmarked server cannot be marked', () => {
  const ids = ['a', 'b', 'c'];
  it.each([
    [[], null],
    [['a'], null],
    [['a', 'b'], 'c'],
    [['b', 'c'], 'a'],
    [['a', 'b', 'c'], null], // after an update only marked servers remain: unmarking is still possible
  ])('marked %j locks %s', (marked, locked) => {
    expect(exclusionLock(ids, new Set(marked)).lockedId).toBe(locked);
  });

  it('locks the only server of a one-server subscription', () => {
    expect(exclusionLock(['only'], new Set()).lockedId).toBe('only');
  });
});
