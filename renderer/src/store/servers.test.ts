import { describe, expect, it } from 'vitest';
import { sampleSnapshot, status } from '../testing/sample-world';
import { storeWith } from '../testing/store';
import { HISTORIES_KEPT, HISTORY_POINTS_KEPT, keptHistories } from './servers';

const NOW = 1_000_000;

describe('servers slice', () => {
  it('starts empty and takes subscriptions, statuses and unsupported servers from a snapshot', async () => {
    const { store } = await storeWith(sampleSnapshot(NOW));
    const state = store.getState();
    expect(state.subscriptions.map((s) => s.id)).toEqual(['A', 'B']);
    expect(state.statuses.fi?.delayMs).toBe(63);
    expect(state.unsupported.b3).toMatch(/hysteria2/);
    expect(state.core?.version).toBe('4.34.0');
  });

  it('patches only the statuses an event carries and keeps the others as they were', async () => {
    const { store, client, frames } = await storeWith(sampleSnapshot(NOW));
    const before = store.getState().statuses;
    client.emit('statuses', [status('nl', { delayMs: 90 })]);
    frames.next();
    const after = store.getState().statuses;
    expect(after.nl?.delayMs).toBe(90);
    expect(after.fi).toBe(before.fi);
    expect(after).not.toBe(before);
  });

  it('replaces the subscription list when the host sends one', async () => {
    const { store, client } = await storeWith(sampleSnapshot(NOW));
    const [a] = store.getState().subscriptions;
    client.emit('subscriptions', [a!]);
    expect(store.getState().subscriptions.map((s) => s.id)).toEqual(['A']);
  });

  it('moves a subscription up at once and tells the host the new order', async () => {
    const { store, client } = await storeWith(sampleSnapshot(NOW));
    const pending = store.getState().moveSubscription('B', -1);
    expect(store.getState().subscriptions.map((s) => s.id)).toEqual(['B', 'A']);
    expect((await pending).ok).toBe(true);
    expect(client.callsTo('reorderSubscriptions')).toEqual([{ ids: ['B', 'A'] }]);
  });

  it('does not call the host for a move past either end', async () => {
    const { store, client } = await storeWith(sampleSnapshot(NOW));
    await store.getState().moveSubscription('A', -1);
    await store.getState().moveSubscription('B', 1);
    expect(client.callsTo('reorderSubscriptions')).toEqual([]);
  });

  it('drops a dragged subscription into the place of the target', async () => {
    const snapshot = sampleSnapshot(NOW);
    const c = { ...snapshot.subscriptions[1]!, id: 'C', name: 'C', servers: [] };
    const { store, client } = await storeWith({ ...snapshot, subscriptions: [...snapshot.subscriptions, c] });
    await store.getState().moveSubscriptionTo('C', 'A');
    expect(client.callsTo('reorderSubscriptions')).toEqual([{ ids: ['C', 'A', 'B'] }]);
    await store.getState().moveSubscriptionTo('C', 'B');
    expect(store.getState().subscriptions.map((s) => s.id)).toEqual(['A', 'B', 'C']);
  });

  it('puts the order back and says why when the host refuses a reorder', async () => {
    const { store, client } = await storeWith(sampleSnapshot(NOW));
    client.failNext('reorderSubscriptions', 'storage is read-only');
    const result = await store.getState().moveSubscription('B', -1);
    expect(result).toEqual({ ok: false, error: 'storage is read-only' });
    expect(store.getState().subscriptions.map((s) => s.id)).toEqual(['A', 'B']);
    expect(store.getState().notices.at(-1)).toMatchObject({ tone: 'error', what: 'reorder', text: 'storage is read-only' });
  });

  it('adds a subscription the host returns, and reports a refusal inline without a notice', async () => {
    const { store, client } = await storeWith(sampleSnapshot(NOW));
    const added = await store.getState().addSubscription({ text: 'vless://a\nvless://b', name: 'Pasted' });
    expect(added.ok && added.value.servers.length).toBe(2);
    expect(store.getState().subscriptions.map((s) => s.name)).toContain('Pasted');
    client.failNext('addSubscription', 'could not fetch: 404');
    const refused = await store.getState().addSubscription({ url: 'https://x.example/sub' });
    expect(refused).toEqual({ ok: false, error: 'could not fetch: 404' });
    expect(store.getState().notices).toEqual([]);
  });

  it('removes a subscription only once the host agreed', async () => {
    const { store, client } = await storeWith(sampleSnapshot(NOW));
    client.failNext('removeSubscription', 'busy');
    await store.getState().removeSubscription('B');
    expect(store.getState().subscriptions).toHaveLength(2);
    await store.getState().removeSubscription('B');
    expect(store.getState().subscriptions.map((s) => s.id)).toEqual(['A']);
  });

  it('takes the result of a retest and of a throughput test into the statuses', async () => {
    const { store, client } = await storeWith(sampleSnapshot(NOW));
    await store.getState().testServer('us');
    expect(client.callsTo('testServer')).toEqual([{ serverId: 'us' }]);
    expect(store.getState().statuses.us).toMatchObject({ delayMs: 70, downForNow: false });
    await store.getState().measureThroughput('fi');
    expect(store.getState().statuses.fi?.throughputBps).toBe(3_400_000);
  });

  it('keeps a server’s history once fetched', async () => {
    const { store } = await storeWith(sampleSnapshot(NOW));
    await store.getState().loadHistory('fi');
    expect(store.getState().history.fi?.length).toBeGreaterThan(0);
  });

  it('confirms an empty update through the host', async () => {
    const snapshot = sampleSnapshot(NOW);
    snapshot.subscriptions[1] = { ...snapshot.subscriptions[1]!, pendingEmpty: true };
    const { store, client } = await storeWith(snapshot);
    await store.getState().confirmEmptySubscription('B');
    expect(client.callsTo('confirmEmptySubscription')).toEqual([{ id: 'B' }]);
    expect(store.getState().subscriptions[1]).toMatchObject({ servers: [], pendingEmpty: false });
  });

  it('keeps the histories of the servers opened last, each with its latest points, however many are opened', async () => {
    const { store } = await storeWith(sampleSnapshot(NOW));
    const ids = store.getState().subscriptions.flatMap((s) => s.servers.map((server) => server.id));
    for (let round = 0; round < 5; round++) for (const id of ids) expect((await store.getState().loadHistory(id)).ok).toBe(true);
    expect(ids.length).toBeGreaterThan(HISTORIES_KEPT);
    const kept = Object.keys(store.getState().history);
    expect(kept).toEqual(ids.slice(-HISTORIES_KEPT));
    const long = Array.from({ length: HISTORY_POINTS_KEPT * 3 }, (_, i) => ({ at: i, method: 'url' as const, delayMs: i }));
    const bounded = keptHistories({}, 'x', long);
    expect(bounded.x).toHaveLength(HISTORY_POINTS_KEPT);
    expect(bounded.x?.at(-1)?.at).toBe(HISTORY_POINTS_KEPT * 3 - 1);
  });
});
