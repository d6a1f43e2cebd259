import { describe, expect, it } from 'vitest';
import { sampleSnapshot } from '../testing/sample-world';
import { storeWith } from '../testing/store';
import { dialogStillValid } from './dialogs';

const NOW = 1_000_000;

describe('dialogs slice', () => {
  it('opens one dialog at a time and closes it', async () => {
    const { store } = await storeWith(sampleSnapshot(NOW));
    expect(store.getState().dialog).toEqual({ kind: 'none' });
    store.getState().openDialog({ kind: 'exclude-servers', subscriptionId: 'A' });
    store.getState().openDialog({ kind: 'server-details', serverId: 'fi' });
    expect(store.getState().dialog).toEqual({ kind: 'server-details', serverId: 'fi' });
    store.getState().closeDialog();
    expect(store.getState().dialog).toEqual({ kind: 'none' });
  });

  it('closes a dialog whose subscription the host removed', async () => {
    const { store, client } = await storeWith(sampleSnapshot(NOW));
    store.getState().openDialog({ kind: 'exclude-servers', subscriptionId: 'B' });
    client.emit('subscriptions', [client.snapshot.subscriptions[0]!]);
    expect(store.getState().dialog).toEqual({ kind: 'none' });
  });

  it('keeps a dialog whose subject is still there', async () => {
    const { store, client } = await storeWith(sampleSnapshot(NOW));
    store.getState().openDialog({ kind: 'server-details', serverId: 'fi' });
    client.emit('snapshot', client.snapshot);
    expect(store.getState().dialog).toEqual({ kind: 'server-details', serverId: 'fi' });
  });

  it.each([
    [{ kind: 'settings' } as const, true],
    [{ kind: 'add-subscription' } as const, true],
    [{ kind: 'confirm-remove', subscriptionId: 'X' } as const, false],
    [{ kind: 'confirm-empty', subscriptionId: 'A' } as const, true],
    [{ kind: 'server-details', serverId: 'gone' } as const, false],
  ])('%j is still valid: %s', (dialog, valid) => {
    expect(dialogStillValid(dialog, new Set(['A']), new Set(['fi']))).toBe(valid);
  });
});
