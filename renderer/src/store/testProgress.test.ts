import { describe, expect, it } from 'vitest';
import { sampleSnapshot } from '../testing/sample-world';
import { storeWith } from '../testing/store';
import { selectProgressView } from './testProgress';

const NOW = 1_000_000;

describe('test progress slice', () => {
  it('starts a run, shows it at once and follows the host’s progress to the end', async () => {
    const { store, client, frames } = await storeWith(sampleSnapshot(NOW));
    expect(selectProgressView(store.getState())).toEqual({ running: false, done: 0, total: 0, fraction: null });
    const pending = store.getState().testAll();
    expect(store.getState().testProgress.running).toBe(true);
    await pending;
    expect(client.callsTo('testAll')).toEqual([{}]);
    client.emit('testProgress', { running: true, done: 3, total: 9 });
    frames.next();
    expect(selectProgressView(store.getState())).toEqual({ running: true, done: 3, total: 9, fraction: 1 / 3 });
    client.emit('testProgress', { running: false, done: 9, total: 9 });
    frames.next();
    expect(selectProgressView(store.getState())).toMatchObject({ running: false, fraction: 1 });
  });

  it('clamps a progress that overshoots', () => {
    expect(selectProgressView({ testProgress: { running: true, done: 12, total: 10 } })).toMatchObject({ done: 10, fraction: 1 });
  });

  it('goes back to idle when the host refuses to start', async () => {
    const { store, client } = await storeWith(sampleSnapshot(NOW));
    client.failNext('testAll', 'already running');
    await store.getState().testAll();
    expect(store.getState().testProgress.running).toBe(false);
    expect(store.getState().notices[0]).toMatchObject({ what: 'testAll', text: 'already running' });
  });
});
