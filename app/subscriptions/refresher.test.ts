import { describe, expect, it } from 'vitest';
import type { Subscription } from '../../shared/domain/subscription';
import { memoryLogger } from '../log/logger';
import { FakeClock } from '../testing/fake-clock';
import { SubscriptionRefresher } from './refresher';

const HOUR = 3_600_000;

function world() {
  const clock = new FakeClock(0);
  const updated: string[] = [];
  let list: Subscription[] = [
    { id: 'a', url: 'https://a.example/sub', name: 'A', servers: [], usage: null, rejected: [], updatedAt: 0, lastError: null, pendingEmpty: false },
    { id: 'b', name: 'Pasted', servers: [], usage: null, rejected: [], updatedAt: 0, lastError: null, pendingEmpty: false },
  ];
  const store = {
    list: () => list,
    update: async (id: string) => {
      updated.push(`${id}@${Math.round(clock.now() / HOUR)}h`);
      list = list.map((s) => (s.id === id ? { ...s, updatedAt: clock.now(), lastAttemptAt: clock.now() } : s));
      return list.find((s) => s.id === id)!;
    },
  };
  const refresher = new SubscriptionRefresher(store, clock, memoryLogger().logger, HOUR / 2, 1000);
  return { clock, updated, refresher };
}

describe('SubscriptionRefresher', () => {
  it('updates a URL subscription every 12 hours, never a pasted one', async () => {
    const { clock, updated, refresher } = world();
    refresher.start();
    await clock.advance(30 * HOUR);
    refresher.stop();
    expect(updated).toEqual(['a@12h', 'a@24h']);
  });

  it('does nothing once stopped', async () => {
    const { clock, updated, refresher } = world();
    refresher.start();
    refresher.stop();
    await clock.advance(30 * HOUR);
    expect(updated).toEqual([]);
  });
});
