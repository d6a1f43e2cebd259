/** Test-only helpers for slice tests: a store around the fake client, started from its snapshot. */
import type { AppSnapshot } from '../../../shared/ipc/contract';
import { createAppStore, type AppStore } from '../store';
import { createFakeClient, type FakeClient } from './fake-client';
import { type ManualFrames, manualFrames } from './frames';

/** A store that has followed the fake host's events and received its first snapshot. */
export async function storeWith(
  snapshot: AppSnapshot,
  env = { systemLanguage: 'en-US', prefersDark: false },
): Promise<{ store: AppStore; client: FakeClient; frames: ManualFrames }> {
  const client = createFakeClient(snapshot, () => 1_000_000);
  const frames = manualFrames();
  const store = createAppStore(client, env, frames);
  store.getState().start();
  await settle();
  return { store, client, frames };
}

/** Lets pending promise callbacks run (the fake host answers asynchronously, like a real one). */
export async function settle(): Promise<void> {
  for (let i = 0; i < 5; i++) await Promise.resolve();
}
