import { describe, expect, it } from 'vitest';
import type { Subscription } from '../../../shared/domain/subscription';
import { dueForRefresh, nextRefreshAt } from './refresh';

const HOUR = 3_600_000;
const sub = (over: Partial<Subscription>): Subscription => ({
  id: 'a',
  url: 'https://provider.example/sub',
  name: 'A',
  servers: [],
  usage: null,
  rejected: [],
  updatedAt: 0,
  lastError: null,
  pendingEmpty: false,
  ...over,
});

describe('subscription refresh', () => {
  it.each([
    { name: 'no URL (pasted text): never', s: sub({ url: undefined }), at: null },
    { name: 'every 12 h when the provider asks nothing', s: sub({ updatedAt: 5 }), at: 5 + 12 * HOUR },
    { name: "the provider's interval", s: sub({ updatedAt: 0, updateIntervalHours: 6 }), at: 6 * HOUR },
    { name: 'not more often than hourly', s: sub({ updatedAt: 0, updateIntervalHours: 0.01 }), at: HOUR },
    { name: 'at least weekly', s: sub({ updatedAt: 0, updateIntervalHours: 10_000 }), at: 7 * 24 * HOUR },
    { name: 'a failed update is retried within the hour', s: sub({ updatedAt: 0, lastAttemptAt: 20 * HOUR, lastError: 'timeout' }), at: 21 * HOUR },
    { name: '…and not sooner than 10 min even for a 1 h interval', s: sub({ updatedAt: 0, updateIntervalHours: 1, lastAttemptAt: 2 * HOUR, lastError: 'x' }), at: 3 * HOUR },
    { name: 'never updated: due at once', s: sub({ updatedAt: null }), at: 12 * HOUR },
  ])('$name', ({ s, at }) => {
    expect(nextRefreshAt(s)).toBe(at);
  });

  it('lists the due ones, most overdue first', () => {
    const list = [sub({ id: 'a', updatedAt: 2 * HOUR }), sub({ id: 'b', updatedAt: 0 }), sub({ id: 'c', updatedAt: 20 * HOUR }), sub({ id: 'd', url: undefined })];
    expect(dueForRefresh(list, 15 * HOUR).map((s) => s.id)).toEqual(['b', 'a']);
  });
});
