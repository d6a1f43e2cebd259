import { describe, expect, it } from 'vitest';
import { FakeClock } from '../testing/fake-clock';
import { NetworkSettling } from './settle';

describe('the quiet period after a network change', () => {
  it('holds cut tests until 2 s after the last of several changes, then runs the retest once', async () => {
    const clock = new FakeClock();
    const t0 = clock.now();
    const settling = new NetworkSettling(clock);
    let settledAt: number | null = null;
    await settling.settled();
    const retests: number[] = [];
    settling.changed(() => retests.push(clock.now() - t0));
    void settling.settled().then(() => (settledAt = clock.now() - t0));
    await clock.advance(1500);
    settling.changed(() => retests.push(clock.now() - t0));
    await clock.advance(1900);
    expect(settledAt).toBeNull();
    await clock.advance(100);
    expect(settledAt).toBe(3500);
    expect(retests).toEqual([3500]);
  });

  it('lets every waiter go at shutdown and retests nothing', async () => {
    const clock = new FakeClock();
    const settling = new NetworkSettling(clock);
    let retested = false;
    let released = false;
    settling.changed(() => (retested = true));
    void settling.settled().then(() => (released = true));
    settling.stop();
    await clock.advance(5000);
    expect(released).toBe(true);
    expect(retested).toBe(false);
  });
});
