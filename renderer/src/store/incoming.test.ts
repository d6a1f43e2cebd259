import { describe, expect, it } from 'vitest';
import { sampleSnapshot, status } from '../testing/sample-world';
import { storeWith } from '../testing/store';
import { createFakeClient } from '../testing/fake-client';
import { animationFrames, type FrameHost } from './frames';
import { createAppStore } from './index';

const NOW = 1_000_000;

describe('bursts from the host are applied once per frame', () => {
  it('merges every statuses and progress event of a frame into one store update, the latest of each server winning', async () => {
    const { store, client, frames } = await storeWith(sampleSnapshot(NOW));
    const before = store.getState().statuses;
    let updates = 0;
    store.subscribe(() => (updates += 1));
    for (let done = 1; done <= 50; done += 1) {
      client.emit('statuses', [status('nl', { delayMs: 100 + done }), status('b2', { delayMs: done })]);
      client.emit('testProgress', { running: true, done, total: 50 });
    }
    // Nothing drawn yet, nothing applied yet: the store was not touched 100 times for one frame.
    expect(updates).toBe(0);
    expect(store.getState().statuses).toBe(before);
    expect(frames.waiting).toBe(1);

    frames.next();
    expect(updates).toBe(1);
    const state = store.getState();
    expect(state.statuses.nl?.delayMs).toBe(150);
    expect(state.statuses.b2?.delayMs).toBe(50);
    expect(state.statuses.fi).toBe(before.fi);
    expect(state.testProgress).toEqual({ running: true, done: 50, total: 50 });
    // An empty frame changes nothing.
    expect(frames.next()).toBe(0);
    expect(updates).toBe(1);
  });

  it('asks for one frame per burst, and another for the next burst', async () => {
    const { store, client, frames } = await storeWith(sampleSnapshot(NOW));
    client.emit('statuses', [status('nl', { delayMs: 1 })]);
    client.emit('statuses', [status('nl', { delayMs: 2 })]);
    expect(frames.waiting).toBe(1);
    frames.next();
    client.emit('statuses', [status('nl', { delayMs: 3 })]);
    expect(frames.waiting).toBe(1);
    frames.next();
    expect(store.getState().statuses.nl?.delayMs).toBe(3);
  });

  it('shows a late answer over "down for now" with the next frame', async () => {
    const { store, client, frames } = await storeWith(sampleSnapshot(NOW));
    expect(store.getState().statuses.us?.downForNow).toBe(true);
    client.emit('statuses', [status('us', { delayMs: 1480, testedAt: NOW })]);
    frames.next();
    expect(store.getState().statuses.us).toMatchObject({ downForNow: false, delayMs: 1480 });
  });

  it('forgets what was queued when a snapshot arrives after it (the snapshot already holds it)', async () => {
    const { store, client, frames } = await storeWith(sampleSnapshot(NOW));
    client.emit('statuses', [status('nl', { delayMs: 1 })]);
    client.emit('testProgress', { running: true, done: 1, total: 9 });
    client.emit('snapshot', sampleSnapshot(NOW));
    frames.next();
    expect(store.getState().statuses.nl?.delayMs).toBe(sampleSnapshot(NOW).statuses.nl?.delayMs);
    expect(store.getState().testProgress.running).toBe(false);
  });

  it('applies an action’s own result at once, after what the host sent before it', async () => {
    const { store, client, frames } = await storeWith(sampleSnapshot(NOW));
    // Older news of fi and nl is waiting for the frame when the retest of fi answers.
    client.emit('statuses', [status('fi', { delayMs: 999, testing: true }), status('nl', { delayMs: 77 })]);
    const result = await store.getState().testServer('fi');
    expect(result.ok).toBe(true);
    // The answer (70 ms) came last and wins; nl's news landed with it, in order.
    expect(store.getState().statuses.fi).toMatchObject({ delayMs: 70, testing: false });
    expect(store.getState().statuses.nl?.delayMs).toBe(77);
    frames.next();
    expect(store.getState().statuses.fi?.delayMs).toBe(70);
  });

  it('keeps "Test all" shown as started when older progress was still waiting for a frame', async () => {
    const { store, client, frames } = await storeWith(sampleSnapshot(NOW));
    client.emit('testProgress', { running: false, done: 9, total: 9 });
    const pending = store.getState().testAll();
    frames.next();
    expect(store.getState().testProgress.running).toBe(true);
    await pending;
  });
});

describe('animationFrames', () => {
  function fakeWindow(hidden: boolean) {
    const frames: (() => void)[] = [];
    const timers = new Map<number, { callback: () => void; ms: number }>();
    const listeners = new Set<() => void>();
    let next = 1;
    const host: FrameHost = {
      requestAnimationFrame: (callback) => frames.push(callback),
      setTimeout: (callback, ms) => {
        timers.set(next, { callback, ms });
        return next++;
      },
      clearTimeout: (handle) => void timers.delete(handle),
      document: {
        hidden,
        addEventListener: (_type, listener) => void listeners.add(listener),
        removeEventListener: (_type, listener) => void listeners.delete(listener),
      },
    };
    const fireTimer = () => {
      const [handle, timer] = [...timers][0]!;
      timers.delete(handle);
      timer.callback();
    };
    return { host, frames, timers, listeners, fireTimer };
  }

  it('runs the callback in the next animation frame of a shown window, with no timer beside it', () => {
    const { host, frames, timers, listeners } = fakeWindow(false);
    let runs = 0;
    animationFrames(host).request(() => (runs += 1));
    expect(runs).toBe(0);
    frames.shift()!();
    expect(runs).toBe(1);
    expect(timers.size).toBe(0);
    expect(listeners.size).toBe(0);
  });

  it('in a hidden window, which draws no frames, coalesces for a while and leaves no timer or listener behind', () => {
    const { host, frames, timers, listeners, fireTimer } = fakeWindow(true);
    let runs = 0;
    const scheduler = animationFrames(host, 2000);
    for (let i = 0; i < 100; i++) {
      scheduler.request(() => (runs += 1));
      expect([...timers.values()].map((t) => t.ms)).toEqual([2000]);
      fireTimer();
    }
    expect(frames).toEqual([]);
    expect(runs).toBe(100);
    expect(timers.size).toBe(0);
    expect(listeners.size).toBe(0);
  });

  it('applies what waited at once when the hidden window is shown again', () => {
    const { host, timers, listeners } = fakeWindow(true);
    let runs = 0;
    animationFrames(host, 2000).request(() => (runs += 1));
    expect(runs).toBe(0);
    for (const listener of [...listeners]) listener();
    expect(runs).toBe(1);
    expect(timers.size).toBe(0);
    expect(listeners.size).toBe(0);
  });

  it('a burst of statuses in a hidden window is applied once, the latest of each server', () => {
    const { host, listeners, fireTimer } = fakeWindow(true);
    const client = createFakeClient(sampleSnapshot(NOW));
    const store = createAppStore(client, { systemLanguage: 'en', prefersDark: false }, animationFrames(host, 2000));
    store.getState().applySnapshot(client.snapshot);
    const unfollow = store.getState().follow();
    let changes = 0;
    store.subscribe(() => (changes += 1));
    for (let done = 1; done <= 50; done += 1) client.emit('statuses', [status('nl', { delayMs: 100 + done })]);
    expect(store.getState().statuses.nl?.delayMs).not.toBe(150);
    fireTimer();
    expect(store.getState().statuses.nl?.delayMs).toBe(150);
    expect(changes).toBe(1);
    expect(listeners.size).toBe(0);
    unfollow();
  });
});
