import { describe, expect, it } from 'vitest';
import { ruleSetSchema } from '../../../../shared/rule-sets';
import { candidateProblem, dueForUpdate, nextUpdateAt, type UpdateRecord } from './update';

const H = 3_600_000;
const set = (over: Record<string, unknown> = {}) =>
  ruleSetSchema.parse({ id: 'lab', name: 'Lab', url: 'http://127.0.0.1:1/geosite.dat', format: 'geosite-dat', list: 'labset', outbound: 'direct', enabled: true, ...over });
const source = { url: 'http://127.0.0.1:1/geosite.dat', format: 'geosite-dat' as const, list: 'labset' };
const good = (fetchedAt: number): UpdateRecord => ({ source, copy: { fetchedAt, bytes: 10, entries: 2 }, lastAttemptAt: fetchedAt, lastError: null });
const failedAt = (record: UpdateRecord, at: number): UpdateRecord => ({ ...record, lastAttemptAt: at, lastError: 'the provider answered HTTP 404' });

describe('when a rule set is fetched', () => {
  it.each<[string, Record<string, unknown>, UpdateRecord | undefined, number | null]>([
    ['off: never', { enabled: false }, good(0), null],
    ['chosen and never fetched: at once', {}, undefined, 0],
    ['a good copy: a day after it was fetched', {}, good(10 * H), 34 * H],
    ['its own interval when set', { updateHours: 6 }, good(10 * H), 16 * H],
    ['a failed update: an hour after the attempt, the copy kept meanwhile', {}, failedAt(good(10 * H), 20 * H), 21 * H],
    ['a failed first fetch: an hour after it', {}, failedAt({ source, copy: null, lastAttemptAt: null, lastError: null }, 5 * H), 6 * H],
    ['a failure with an interval under an hour is retried at that interval, never under 10 minutes', { updateHours: 1 }, failedAt(good(0), 2 * H), 3 * H],
    ['another list than the copy was fetched for: at once', { list: 'other' }, good(10 * H), 0],
    ['the list named in another case is the same list', { list: 'LabSet' }, good(10 * H), 34 * H],
    ['another address: at once', { url: 'http://127.0.0.1:2/geosite.dat' }, good(10 * H), 0],
  ])('%s', (_, over, record, at) => {
    expect(nextUpdateAt(set(over), record)).toBe(at);
  });

  it('the due sets, most overdue first; sets that are off or not due are left', () => {
    const sets = [set({ id: 'a' }), set({ id: 'b' }), set({ id: 'c', enabled: false }), set({ id: 'd' })];
    const records = { a: good(10 * H), b: good(2 * H), d: good(30 * H) };
    expect(dueForUpdate(sets, records, 36 * H).map((s) => s.id)).toEqual(['b', 'a']);
  });
});

describe('whether a fetched file may replace the copy in force', () => {
  it.each([
    [{ bytes: 100, entries: 3 }, 1000, null],
    [{ bytes: 1001, entries: 3 }, 1000, 'the file is larger than 0 MiB'],
    [{ bytes: 200 * 1024 * 1024, entries: 3 }, undefined, 'the file is larger than 128 MiB'],
    [{ bytes: 100, entries: 0 }, 1000, 'the list is empty'],
  ])('%j under %s bytes: %s', (candidate, max, problem) => {
    expect(candidateProblem(candidate, max)).toBe(problem);
  });
});
