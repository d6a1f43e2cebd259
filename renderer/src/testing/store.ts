/** Test-only helpers for slice tests: a store around the fake client, started from its snapshot. */
import type { AppSnapshot } from '../../../shared/ipc/contract';
import { createAppStore, type AppStore } from '../store';
import { createFakeClient, type FakeClient } from './fake-client';

/** A store that has followed the fake host's events and received its first snapshot. */
export async function storeWith(
  snapshot: AppSnapshot,
  env = { systemLanguage: 'en-US', prefersDark: false },
): Promise<{ store: AppStore; client: FakeClient }> {
  const client = createFakeClient(snapshot, () => 1_000_000);
  const store = createAppStore(client, env);
  store.getState().start();
  await settle();
  return { store, client };
}

/** Lets pending promise callbacks run (the fake host answers asynchronously, like a real one). */
export async function settle(): Promise<void> {
  for (let i = 0; i < 5; i++) await Promise.resolve();
}
