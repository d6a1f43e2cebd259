import { describe, expect, it } from 'vitest';
import { sampleSnapshot } from '../testing/sample-world';
import { storeWith } from '../testing/store';
import { NO_SELECTION, type Selection, type SelectionGesture, selectionAfter, selectListedServerIds, selectSelectedIds } from './selection';

const SHOWN = ['a', 'b', 'c', 'd', 'e'];
const sel = (ids: string[], anchor: string | null): Selection => ({ ids, anchor });

describe('selectionAfter: the list’s selection gestures', () => {
  it.each<[string, Selection, SelectionGesture, Selection]>([
    ['Ctrl/Cmd-click adds a row and makes it the anchor', sel(['a'], 'a'), { kind: 'toggle', id: 'c' }, sel(['a', 'c'], 'c')],
    ['Ctrl/Cmd-click on a selected row takes it out', sel(['a', 'c'], 'c'), { kind: 'toggle', id: 'a' }, sel(['c'], 'a')],
    ['toggled rows keep the list’s order', sel(['d'], 'd'), { kind: 'toggle', id: 'b' }, sel(['b', 'd'], 'b')],
    ['Shift-click selects from the anchor down', sel(['b'], 'b'), { kind: 'range', id: 'd' }, sel(['b', 'c', 'd'], 'b')],
    ['Shift-click selects from the anchor up', sel(['d'], 'd'), { kind: 'range', id: 'a' }, sel(['a', 'b', 'c', 'd'], 'd')],
    ['a second Shift-click replaces the range, from the same anchor', sel(['b', 'c', 'd'], 'b'), { kind: 'range', id: 'a' }, sel(['a', 'b'], 'b')],
    ['Shift-click with no anchor yet selects that row alone', NO_SELECTION, { kind: 'range', id: 'c' }, sel(['c'], 'c')],
    ['Shift-click whose anchor left the list starts there', sel(['x'], 'x'), { kind: 'range', id: 'c' }, sel(['c'], 'c')],
    ['a plain click (connect) clears it and anchors there', sel(['a', 'b'], 'a'), { kind: 'only', id: 'd' }, sel([], 'd')],
    ['Ctrl/Cmd+A selects every row shown', sel(['b'], 'b'), { kind: 'all' }, sel(SHOWN, 'b')],
    ['Escape clears it', sel(['a', 'b'], 'a'), { kind: 'clear' }, sel([], 'a')],
  ])('%s', (_case, before, gesture, after) => {
    expect(selectionAfter(before, SHOWN, gesture)).toEqual(after);
  });
});

describe('the selection in the store', () => {
  it('follows the list’s order and drops the servers a search hides', async () => {
    const { store } = await storeWith(sampleSnapshot(1_000_000));
    const listed = selectListedServerIds(store.getState());
    expect(listed.length).toBeGreaterThan(3);
    store.getState().select({ kind: 'toggle', id: listed[0]! });
    store.getState().select({ kind: 'range', id: listed[2]! });
    expect(selectSelectedIds(store.getState())).toEqual(listed.slice(0, 3));
    const name = store.getState().subscriptions.flatMap((s) => s.servers).find((s) => s.id === listed[1])!.name;
    store.getState().setFilter(name);
    expect(selectSelectedIds(store.getState())).toEqual([listed[1]]);
    store.getState().setFilter('');
    expect(selectSelectedIds(store.getState())).toEqual(listed.slice(0, 3));
  });
});
