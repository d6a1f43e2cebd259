import { describe, expect, it } from 'vitest';
import { SnapshotPrefetch } from './snapshot-prefetch';

/** A prefetch on a fake clock whose frames say which making they were. */
function harness(maxAgeMs = 2000) {
  let now = 0;
  let made = 0;
  const prefetch = new SnapshotPrefetch(async () => `frame ${++made}`, maxAgeMs, () => now);
  return {
    prefetch,
    made: () => made,
    advance: (ms: number) => (now += ms),
    /** Lets a prepared frame be made (it waits for the turn after prepare). */
    settle: () => new Promise<void>((resolve) => setImmediate(resolve)),
  };
}

describe('SnapshotPrefetch', () => {
  it.each([
    ['nothing happened since it was prepared', () => undefined, 'frame 1', 1],
    ['an event went out after it was made', (h: ReturnType<typeof harness>) => h.prefetch.eventSent(), 'frame 2', 2],
    ['it is older than its age limit', (h: ReturnType<typeof harness>) => h.advance(2001), 'frame 2', 2],
    ['it is exactly at its age limit', (h: ReturnType<typeof harness>) => h.advance(2000), 'frame 1', 1],
  ])('a window that connects when %s gets %s', async (_when, between, frame, makings) => {
    const h = harness();
    h.prefetch.prepare();
    await h.settle();
    between(h);
    expect(await h.prefetch.take()).toBe(frame);
    expect(h.made()).toBe(makings);
  });

  it('makes the frame after the turn that prepared it, once for pages asked for together', async () => {
    const h = harness();
    h.prefetch.prepare();
    h.prefetch.prepare();
    expect(h.made()).toBe(0);
    await h.settle();
    expect(h.made()).toBe(1);
  });

  it('gives a prepared frame to one window only: the next makes its own', async () => {
    const h = harness();
    h.prefetch.prepare();
    await h.settle();
    expect(await h.prefetch.take()).toBe('frame 1');
    expect(await h.prefetch.take()).toBe('frame 2');
  });

  it('an event while the prepared frame is still to be made: the window gets one made after the event', async () => {
    const h = harness();
    h.prefetch.prepare();
    h.prefetch.eventSent();
    expect(await h.prefetch.take()).toBe('frame 1');
    await h.settle();
    // The prepared one, begun before the event, is made for nobody and dropped.
    expect(h.made()).toBe(2);
    expect(await h.prefetch.take()).toBe('frame 3');
  });

  it('a window with nothing prepared gets a frame made for it', async () => {
    const h = harness();
    expect(await h.prefetch.take()).toBe('frame 1');
  });

  it('a frame that cannot be made fails the window that takes it, and only that one', async () => {
    let fail = true;
    const prefetch = new SnapshotPrefetch(async () => {
      if (fail) throw new Error('the engine is stopping');
      return 'frame';
    });
    prefetch.prepare();
    await new Promise<void>((resolve) => setImmediate(resolve));
    await expect(prefetch.take()).rejects.toThrow('the engine is stopping');
    fail = false;
    expect(await prefetch.take()).toBe('frame');
  });
});
