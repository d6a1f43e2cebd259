/**
 * Servers the user selected in the list, for an action on several at once (the speed test). The
 * rules are the ones file managers taught everyone, kept pure in `selectionAfter`:
 *
 * - Ctrl-click (Cmd-click on a Mac) or Space on a row adds it, or takes it out again;
 * - Shift-click or Shift+arrow selects every row from the last one chosen (the anchor) to this
 *   one, in the order the list shows them (its sort and search), in place of the range before;
 * - a plain click still connects, as it always has, and clears the selection (the new anchor is
 *   that row); Escape clears it;
 * - Ctrl+A (Cmd+A) selects every server the list shows.
 *
 * Servers that leave the list (a subscription update, a search that hides them) leave the
 * selection as it is read (`selectSelectedIds`), so an action never reaches a server the user
 * cannot see.
 */
import type { ServerId } from '../../../shared/domain/server';
import { memoSelector } from './memo';
import { selectListRows } from './servers.selectors';
import type { AppState, SliceDeps } from './types';

export interface Selection {
  ids: readonly ServerId[];
  /** Where a range starts: the row last clicked, toggled or connected to. */
  anchor: ServerId | null;
}

export type SelectionGesture =
  | { kind: 'toggle'; id: ServerId }
  | { kind: 'range'; id: ServerId }
  | { kind: 'only'; id: ServerId }
  | { kind: 'all' }
  | { kind: 'clear' };

export const NO_SELECTION: Selection = { ids: [], anchor: null };

/** The selection after a gesture, over the servers in the order the list shows them. */
export function selectionAfter(selection: Selection, shown: readonly ServerId[], gesture: SelectionGesture): Selection {
  switch (gesture.kind) {
    case 'clear':
      return { ids: [], anchor: selection.anchor };
    case 'all':
      return { ids: [...shown], anchor: selection.anchor };
    case 'only':
      return { ids: [], anchor: gesture.id };
    case 'toggle': {
      const has = selection.ids.includes(gesture.id);
      return { ids: has ? selection.ids.filter((id) => id !== gesture.id) : inOrder([...selection.ids, gesture.id], shown), anchor: gesture.id };
    }
    case 'range': {
      const to = shown.indexOf(gesture.id);
      const from = selection.anchor === null ? -1 : shown.indexOf(selection.anchor);
      // No anchor in view (none yet, or it left the list): the range starts here.
      if (to < 0) return selection;
      if (from < 0) return { ids: [gesture.id], anchor: gesture.id };
      const [lo, hi] = from <= to ? [from, to] : [to, from];
      return { ids: shown.slice(lo, hi + 1), anchor: selection.anchor };
    }
  }
}

function inOrder(ids: readonly ServerId[], shown: readonly ServerId[]): ServerId[] {
  const at = new Map(shown.map((id, i) => [id, i]));
  return [...ids].sort((a, b) => (at.get(a) ?? Infinity) - (at.get(b) ?? Infinity));
}

export interface SelectionSlice {
  selection: Selection;
  select(gesture: SelectionGesture): void;
}

export function createSelectionSlice(deps: SliceDeps): SelectionSlice {
  const { set, get } = deps;
  return {
    selection: NO_SELECTION,
    select: (gesture) => set({ selection: selectionAfter(get().selection, selectListedServerIds(get()), gesture) }),
  };
}

/** The servers the list shows, in its order (sort and search applied). */
export const selectListedServerIds = memoSelector(
  (state: AppState) => [selectListRows(state)] as const,
  ([rows]): ServerId[] => rows.flatMap((row) => (row.kind === 'server' ? [row.serverId] : [])),
);

/** The selected servers the list still shows, in its order. */
export const selectSelectedIds = memoSelector(
  (state: AppState) => [state.selection.ids, selectListedServerIds(state)] as const,
  ([ids, listed]): ServerId[] => {
    const chosen = new Set(ids);
    return listed.filter((id) => chosen.has(id));
  },
);
