/**
 * Main is the source of truth: a snapshot replaces the whole picture, each event replaces or
 * patches its part. `start` asks for the first snapshot and follows the host's events.
 */
import { IDLE_SPEED_TEST } from '../../../shared/domain/speed-test';
import type { AppSnapshot, VpnClient } from '../../../shared/ipc/contract';
import { dialogStillValid } from './dialogs';
import { keptAuto } from './auto';
import { keptProblems } from './problems';
import { type AppState, type SliceDeps } from './types';
import { request } from './request';

export interface SyncSlice {
  applySnapshot(snapshot: AppSnapshot): void;
  /** Subscribes to the host's events; returns the unsubscribe. */
  follow(): () => void;
  /** Follows the host's events and fetches the first snapshot; returns the unsubscribe. */
  start(): () => void;
}

/** Closes a dialog whose subject vanished in the new picture. */
function keepDialog(state: AppState, next: Pick<AppState, 'subscriptions'>): Pick<AppState, 'dialog'> | object {
  const subscriptionIds = new Set(next.subscriptions.map((s) => s.id));
  const serverIds = new Set(next.subscriptions.flatMap((s) => s.servers.map((server) => server.id)));
  return dialogStillValid(state.dialog, subscriptionIds, serverIds) ? {} : { dialog: { kind: 'none' } };
}

export function createSyncSlice(deps: SliceDeps): SyncSlice {
  const { set, get, client, incoming } = deps;
  const follow = (c: VpnClient): (() => void)[] => [
    c.on('snapshot', (snapshot) => get().applySnapshot(snapshot)),
    c.on('subscriptions', (subscriptions) => set({ subscriptions, ...keepDialog(get(), { subscriptions }) })),
    // The two streams that come in bursts: merged and applied once per frame.
    c.on('statuses', (statuses) => incoming.statuses(statuses)),
    c.on('connection', (connection) => get().setConnection(connection)),
    c.on('traffic', (sample) => get().pushTraffic(sample)),
    c.on('auto', (auto) => get().setAutoSnapshot(auto)),
    c.on('settings', (settings) => set({ settings })),
    c.on('testProgress', (testProgress) => incoming.progress(testProgress)),
    c.on('speedTestProgress', (progress) => get().setSpeedTest(progress)),
    c.on('unsupported', (unsupported) => set({ unsupported })),
    c.on('carried', (carried) => set({ carried })),
    // The whole list each time: it replaces ours (a dismissed problem leaves here, not on the click).
    c.on('problems', (problems) => get().setProblems(problems)),
    c.on('importRequests', (requests) => get().setImportRequests(requests)),
    c.on('routing', (routing) => get().setRouting(routing)),
  ];
  return {
    applySnapshot: (snapshot) => {
      // Whatever was queued arrived before this snapshot, which already contains it.
      incoming.drop();
      get().setConnection(snapshot.connection);
      set({
        subscriptions: snapshot.subscriptions,
        statuses: snapshot.statuses,
        unsupported: snapshot.unsupported,
        carried: snapshot.carried ?? {},
        core: snapshot.core,
        // Capped as every later 'auto' and 'problems' event is (auto.ts, problems.ts).
        auto: keptAuto(snapshot.auto),
        settings: snapshot.settings,
        testProgress: snapshot.testProgress,
        // An older host's snapshot has none: no run.
        speedTest: snapshot.speedTest ?? IDLE_SPEED_TEST,
        speedTestAt: Date.now(),
        demo: snapshot.demo,
        problems: keptProblems(snapshot.problems),
        importRequests: snapshot.importRequests,
        routing: snapshot.routing,
        ready: true,
        ...keepDialog(get(), snapshot),
      });
    },
    follow: () => {
      const unsubscribe = follow(client);
      return () => unsubscribe.forEach((off) => off());
    },
    start: () => {
      const unsubscribe = follow(client);
      void request(deps, 'snapshot', () => client.getSnapshot({})).then((result) => {
        if (result.ok) get().applySnapshot(result.value);
      });
      return () => unsubscribe.forEach((off) => off());
    },
  };
}
