import type { StoreApi } from 'zustand/vanilla';
import type { VpnClient } from '../../../shared/ipc/contract';
import type { AutoSlice } from './auto';
import type { ConnectionSlice } from './connection';
import type { DialogsSlice } from './dialogs';
import type { IncomingBatch } from './incoming';
import type { LabSlice } from './lab';
import type { ImportsSlice } from './imports';
import type { ProblemsSlice } from './problems';
import type { RoutingSlice } from './routing';
import type { SelectionSlice } from './selection';
import type { ServersSlice } from './servers';
import type { SettingsSlice } from './settings';
import type { SharingSlice } from './sharing';
import type { AppsSlice } from './apps';
import type { SyncSlice } from './sync';
import type { SpeedTestSlice } from './speedTest';
import type { TestProgressSlice } from './testProgress';
import type { UiSlice } from './ui';

export type AppState = ServersSlice &
  SelectionSlice &
  ConnectionSlice &
  AutoSlice &
  DialogsSlice &
  SettingsSlice &
  TestProgressSlice &
  SpeedTestSlice &
  UiSlice &
  LabSlice &
  ProblemsSlice &
  ImportsSlice &
  RoutingSlice &
  SharingSlice &
  AppsSlice &
  SyncSlice;

export type AppStore = StoreApi<AppState>;

/** What every slice is built from: the store's set/get, the contract client and the per-frame batch. */
export interface SliceDeps {
  set: AppStore['setState'];
  get: AppStore['getState'];
  client: VpnClient;
  /** The host's high-rate streams (statuses, test progress), applied once per frame. */
  incoming: IncomingBatch;
}
