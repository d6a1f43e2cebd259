import { describe, expect, it } from 'vitest';
import type { AppProblem } from '../../../shared/domain/problem';
import { sampleSnapshot } from '../testing/sample-world';
import { storeWith } from '../testing/store';
import { PROBLEMS_KEPT, selectProblemsShown } from './problems';
import type { AppStore } from './types';

const NOW = 1_000_000;

const unreadable: AppProblem = {
  id: 'p1',
  at: NOW - 60_000,
  severity: 'warning',
  topic: { kind: 'file-unreadable', file: 'settings.json', recovered: 'backup' },
  detail: 'settings.json was unreadable; it was set aside and the last good copy is used.',
};
const diskFull: AppProblem = {
  id: 'p2',
  at: NOW - 30_000,
  severity: 'error',
  topic: { kind: 'save-failed', file: 'cache.json' },
  detail: 'Could not save cache.json (ENOSPC: no space left on device).',
};

const withProblems = (...problems: AppProblem[]) => ({ ...sampleSnapshot(NOW), problems });
const ids = (store: AppStore) => store.getState().problems.map((p) => p.id);

describe('problems slice', () => {
  it('holds the problems of the first snapshot', async () => {
    const { store } = await storeWith(withProblems(unreadable, diskFull));
    expect(store.getState().problems).toEqual([unreadable, diskFull]);
  });

  it('takes each problems event as the whole list', async () => {
    const { store, client } = await storeWith(withProblems(unreadable));
    client.emit('problems', [unreadable, diskFull]);
    expect(ids(store)).toEqual(['p1', 'p2']);
    client.emit('problems', [diskFull]);
    expect(ids(store)).toEqual(['p2']);
    client.emit('problems', []);
    expect(ids(store)).toEqual([]);
  });

  it('keeps at most PROBLEMS_KEPT of a runaway list: every error, then the newest warnings', async () => {
    const { store, client } = await storeWith(withProblems(unreadable));
    const warnings: AppProblem[] = Array.from({ length: PROBLEMS_KEPT * 3 }, (_, i) => ({
      ...unreadable,
      id: `w${i}`,
      at: NOW + i,
      topic: { kind: 'save-failed', file: `file-${i}.json` },
    }));
    client.emit('problems', [diskFull, ...warnings]);
    const kept = store.getState().problems;
    expect(kept).toHaveLength(PROBLEMS_KEPT);
    expect(kept.map((p) => p.id)).toContain('p2');
    expect(kept.map((p) => p.id)).not.toContain('w0');
    expect(kept.map((p) => p.id)).toContain(`w${PROBLEMS_KEPT * 3 - 1}`);
    expect(selectProblemsShown(store.getState())[0]?.id).toBe('p2');
  });

  it('takes the list of a later snapshot (after a reconnect)', async () => {
    const { store, client } = await storeWith(withProblems(unreadable));
    client.emit('snapshot', withProblems(diskFull));
    expect(ids(store)).toEqual(['p2']);
  });

  it('dismisses through the host, which sends the list without it', async () => {
    const { store, client } = await storeWith(withProblems(unreadable, diskFull));
    const result = await store.getState().dismissProblem('p1');
    expect(result.ok).toBe(true);
    expect(client.callsTo('dismissProblem')).toEqual([{ id: 'p1' }]);
    expect(ids(store)).toEqual(['p2']);
  });

  it('keeps a dismissed problem until the host’s list drops it', async () => {
    const { store, client } = await storeWith(withProblems(unreadable, diskFull));
    // A host that answers now and sends its new list later, as over a real link.
    const sent: unknown[] = [];
    client.dismissProblem = async (request) => {
      sent.push(request);
      return null;
    };
    await store.getState().dismissProblem('p1');
    expect(sent).toEqual([{ id: 'p1' }]);
    expect(ids(store)).toEqual(['p1', 'p2']);
    client.emit('problems', [diskFull]);
    expect(ids(store)).toEqual(['p2']);
  });

  it('a refused dismissal keeps the problem and says why in a notice', async () => {
    const { store, client } = await storeWith(withProblems(unreadable));
    client.failNext('dismissProblem', 'Lost the connection to the app');
    const result = await store.getState().dismissProblem('p1');
    expect(result).toEqual({ ok: false, error: 'Lost the connection to the app' });
    expect(ids(store)).toEqual(['p1']);
    expect(store.getState().notices).toMatchObject([{ tone: 'error', what: 'dismissProblem', text: 'Lost the connection to the app' }]);
  });

  it('shows errors before warnings, the newest first within each, the same array until the list changes', () => {
    const olderError: AppProblem = { ...diskFull, id: 'p0', at: NOW - 90_000 };
    const newerWarning: AppProblem = { ...unreadable, id: 'p3', at: NOW };
    const state = { problems: [olderError, unreadable, newerWarning, diskFull] };
    const shown = selectProblemsShown(state);
    expect(shown.map((p) => p.id)).toEqual(['p2', 'p0', 'p3', 'p1']);
    expect(selectProblemsShown(state)).toBe(shown);
    expect(state.problems.map((p) => p.id)).toEqual(['p0', 'p1', 'p3', 'p2']);
  });
});
