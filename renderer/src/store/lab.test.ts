import { describe, expect, it } from 'vitest';
import { sampleSnapshot } from '../testing/sample-world';
import { storeWith } from '../testing/store';

const NOW = 1_000_000;

describe('lab slice', () => {
  it('sends faults and network changes through labControl', async () => {
    const { store, client } = await storeWith(sampleSnapshot(NOW));
    await store.getState().labFault('fi', 'blackhole');
    await store.getState().labSetNetwork(true);
    expect(store.getState().labOffline).toBe(true);
    expect(client.callsTo('labControl')).toEqual([
      { action: 'fault', serverId: 'fi', fault: 'blackhole' },
      { action: 'network', state: 'offline' },
    ]);
  });

  it('clears every fault: the network back on, each server healthy', async () => {
    const { store, client } = await storeWith(sampleSnapshot(NOW));
    await store.getState().labSetNetwork(true);
    await store.getState().labClearFaults();
    const calls = client.callsTo('labControl');
    expect(calls[1]).toEqual({ action: 'network', state: 'online' });
    expect(calls.slice(2)).toHaveLength(9);
    expect(calls.slice(2).every((c) => (c as { fault: string }).fault === 'none')).toBe(true);
    expect(store.getState().labOffline).toBe(false);
  });
});
