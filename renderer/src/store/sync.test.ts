import { describe, expect, it } from 'vitest';
import { createAppStore } from '.';
import { createFakeClient } from '../testing/fake-client';
import { sampleSnapshot, status } from '../testing/sample-world';
import { manualFrames } from '../testing/frames';
import { settle, storeWith } from '../testing/store';

const NOW = 1_000_000;

describe('sync: main is the source of truth', () => {
  it('is not ready until the first snapshot arrives, then has all of it', async () => {
    const client = createFakeClient(sampleSnapshot(NOW));
    const store = createAppStore(client, { systemLanguage: 'en', prefersDark: false }, manualFrames());
    expect(store.getState().ready).toBe(false);
    store.getState().start();
    expect(client.callsTo('getSnapshot')).toEqual([{}]);
    await settle();
    expect(store.getState()).toMatchObject({ ready: true, demo: true, connection: { serverId: 'fi' }, auto: { subscriptionId: 'A' } });
  });

  it('a snapshot event replaces everything (after a reconnect)', async () => {
    const { store, client } = await storeWith(sampleSnapshot(NOW));
    const next = { ...sampleSnapshot(NOW), subscriptions: [], statuses: {}, demo: false };
    client.emit('snapshot', next);
    expect(store.getState()).toMatchObject({ subscriptions: [], statuses: {}, demo: false });
  });

  it('applies each event to its part', async () => {
    const { store, client, frames } = await storeWith(sampleSnapshot(NOW));
    client.emit('unsupported', { fi: 'no' });
    client.emit('statuses', [status('b2', { delayMs: 1 })]);
    client.emit('testProgress', { running: true, done: 1, total: 2 });
    frames.next();
    expect(store.getState().unsupported).toEqual({ fi: 'no' });
    expect(store.getState().statuses.b2?.delayMs).toBe(1);
    expect(store.getState().statuses.fi?.delayMs).toBe(63);
    expect(store.getState().testProgress).toEqual({ running: true, done: 1, total: 2 });
  });

  it('stops following when unsubscribed', async () => {
    const client = createFakeClient(sampleSnapshot(NOW));
    const frames = manualFrames();
    const store = createAppStore(client, { systemLanguage: 'en', prefersDark: false }, frames);
    const stop = store.getState().start();
    await settle();
    stop();
    client.emit('testProgress', { running: true, done: 1, total: 2 });
    frames.next();
    expect(store.getState().testProgress.running).toBe(false);
  });

  it('shows a failed first snapshot as a notice', async () => {
    const client = createFakeClient(sampleSnapshot(NOW));
    client.failNext('getSnapshot', 'Lost the connection to the app');
    const store = createAppStore(client, { systemLanguage: 'en', prefersDark: false }, manualFrames());
    store.getState().start();
    await settle();
    expect(store.getState().ready).toBe(false);
    expect(store.getState().notices[0]).toMatchObject({ what: 'snapshot' });
  });
});
