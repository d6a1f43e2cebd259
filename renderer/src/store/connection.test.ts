import { describe, expect, it } from 'vitest';
import { sampleSnapshot } from '../testing/sample-world';
import { storeWith } from '../testing/store';
import { disconnectedState, isActive, selectTrafficRates } from './connection';

const NOW = 1_000_000;

describe('connection slice', () => {
  it('computes rates in bytes per second over the latest samples', async () => {
    const { store, client } = await storeWith(sampleSnapshot(NOW));
    client.emit('traffic', { at: 1, intervalMs: 1000, upBytes: 1000, downBytes: 10_000 });
    client.emit('traffic', { at: 2, intervalMs: 1000, upBytes: 3000, downBytes: 30_000 });
    expect(selectTrafficRates(store.getState())).toEqual({ upBytesPerSecond: 2000, downBytesPerSecond: 20_000 });
    client.emit('traffic', { at: 3, intervalMs: 500, upBytes: 0, downBytes: 0 });
    client.emit('traffic', { at: 4, intervalMs: 500, upBytes: 0, downBytes: 0 });
    // the window is the last three samples: 2 s of which 1 s carried 3000 up
    expect(selectTrafficRates(store.getState())).toEqual({ upBytesPerSecond: 1500, downBytesPerSecond: 15_000 });
  });

  it('shows no traffic while not connected and forgets samples when the session changes', async () => {
    const { store, client } = await storeWith(sampleSnapshot(NOW));
    client.emit('traffic', { at: 1, intervalMs: 1000, upBytes: 1000, downBytes: 1000 });
    client.emit('connection', { ...disconnectedState });
    expect(selectTrafficRates(store.getState())).toEqual({ upBytesPerSecond: 0, downBytesPerSecond: 0 });
    expect(store.getState().traffic).toEqual([]);
  });

  it('remembers the connections it has seen, for the timeline: the snapshot’s and those after it', async () => {
    const snapshot = sampleSnapshot(NOW);
    const { store, client } = await storeWith(snapshot);
    const since = snapshot.connection.since!;
    expect(store.getState().sessions).toEqual([{ serverId: 'fi', since, until: null }]);
    client.emit('connection', { ...snapshot.connection, state: 'connecting', serverId: 'nl', since: NOW + 1000, httpProxy: null, socksProxy: null });
    client.emit('connection', { ...snapshot.connection, serverId: 'nl', since: NOW + 3000 });
    expect(store.getState().sessions).toEqual([
      { serverId: 'fi', since, until: NOW + 1000 },
      { serverId: 'nl', since: NOW + 3000, until: null },
    ]);
  });

  it('keeps at most 30 samples', async () => {
    const { store, client } = await storeWith(sampleSnapshot(NOW));
    for (let i = 0; i < 50; i++) client.emit('traffic', { at: i, intervalMs: 1000, upBytes: i, downBytes: i });
    expect(store.getState().traffic).toHaveLength(30);
    expect(store.getState().traffic[0]?.at).toBe(20);
  });

  it('connects to a chosen server and takes the host’s connection state', async () => {
    const { store, client } = await storeWith({ ...sampleSnapshot(NOW), connection: disconnectedState });
    expect(isActive(store.getState())).toBe(false);
    await store.getState().connect('nl');
    expect(client.callsTo('connect')).toEqual([{ serverId: 'nl' }]);
    expect(store.getState().connection).toMatchObject({ state: 'connected', serverId: 'nl' });
    expect(isActive(store.getState())).toBe(true);
    await store.getState().disconnect();
    expect(store.getState().connection.state).toBe('disconnected');
  });

  it('shows a refused connect as a notice with the host’s words', async () => {
    const { store, client } = await storeWith(sampleSnapshot(NOW));
    client.failNext('connect', 'the core exited: bad config');
    const result = await store.getState().connect('nl');
    expect(result.ok).toBe(false);
    expect(store.getState().notices).toEqual([expect.objectContaining({ tone: 'error', what: 'connect', text: 'the core exited: bad config' })]);
  });

  it('Connect leaves the choice of server to the host, with Auto on or off', async () => {
    const { store, client } = await storeWith({ ...sampleSnapshot(NOW), connection: disconnectedState });
    await store.getState().connect(); // Auto is on for A
    expect(client.callsTo('connect')).toEqual([{}]);
    store.setState({ auto: { ...store.getState().auto, subscriptionId: null } });
    await store.getState().disconnect();
    await store.getState().connect();
    expect(client.callsTo('connect')).toEqual([{}, {}]);
    expect(store.getState().connection.state).toBe('connected');
    expect(store.getState().notices).toEqual([]);
  });

  it('a refusal of the host’s choice carries its code, for the notice to say in the user’s language, and the host’s words as details', async () => {
    const { store, client } = await storeWith({ ...sampleSnapshot(NOW), connection: disconnectedState });
    client.failNext('connect', 'choose a server to connect to, or turn Auto on for a subscription', 'no-server-chosen');
    const result = await store.getState().connect();
    expect(result).toEqual({ ok: false, error: 'choose a server to connect to, or turn Auto on for a subscription', code: 'no-server-chosen' });
    expect(store.getState().notices).toEqual([
      expect.objectContaining({ tone: 'error', what: 'connect', code: 'no-server-chosen', text: 'choose a server to connect to, or turn Auto on for a subscription' }),
    ]);
  });

  it('a refusal with a code this window does not know is shown in the host’s words', async () => {
    const { store, client } = await storeWith({ ...sampleSnapshot(NOW), connection: disconnectedState });
    client.failNext('connect', 'the moon is in the way', 'moon-in-the-way');
    const result = await store.getState().connect();
    expect(result).toEqual({ ok: false, error: 'the moon is in the way' });
    const [notice] = store.getState().notices;
    expect(notice).toMatchObject({ tone: 'error', what: 'connect', text: 'the moon is in the way' });
    expect(notice).not.toHaveProperty('code');
  });

  it('with no server at all, the host’s refusal becomes the newcomer’s notice in the UI language', async () => {
    const { store, client } = await storeWith({ ...sampleSnapshot(NOW), subscriptions: [], connection: disconnectedState });
    const result = await store.getState().connect();
    expect(result.ok).toBe(false);
    expect(client.callsTo('connect')).toEqual([{}]);
    expect(store.getState().notices).toEqual([expect.objectContaining({ tone: 'error', what: 'connect', key: 'notice.noServer' })]);
  });
});
