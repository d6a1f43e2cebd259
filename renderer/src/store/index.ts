import { createStore } from 'zustand/vanilla';
import type { VpnClient } from '../../../shared/ipc/contract';
import { createAutoSlice } from './auto';
import { createConnectionSlice } from './connection';
import { createDialogsSlice } from './dialogs';
import type { FrameScheduler } from './frames';
import { createIncomingBatch } from './incoming';
import { createImportsSlice } from './imports';
import { createLabSlice } from './lab';
import { createProblemsSlice } from './problems';
import { createRoutingSlice } from './routing';
import { createSelectionSlice } from './selection';
import { createServersSlice } from './servers';
import { createSettingsSlice } from './settings';
import { createSharingSlice } from './sharing';
import { createAppsSlice } from './apps';
import { createSyncSlice } from './sync';
import { createSpeedTestSlice } from './speedTest';
import { createTestProgressSlice } from './testProgress';
import type { AppState, AppStore } from './types';
import { createUiSlice, type UiEnvironment } from './ui';

export type { AppState, AppStore } from './types';
export { animationFrames, type FrameScheduler } from './frames';

/**
 * The one store of the window, built from its slices around the contract client. `frames` decides
 * when bursts from the host are applied (requestAnimationFrame in the window, by hand in tests).
 */
export function createAppStore(client: VpnClient, env: UiEnvironment, frames: FrameScheduler): AppStore {
  return createStore<AppState>()((set, get) => {
    const incoming = createIncomingBatch({ getState: get, setState: set }, frames);
    const deps = { set, get, client, incoming };
    return {
      ...createServersSlice(deps),
      ...createSelectionSlice(deps),
      ...createConnectionSlice(deps),
      ...createAutoSlice(deps),
      ...createDialogsSlice(deps),
      ...createSettingsSlice(deps),
      ...createTestProgressSlice(deps),
      ...createSpeedTestSlice(deps),
      ...createUiSlice(deps, env),
      ...createLabSlice(deps),
      ...createProblemsSlice(deps),
      ...createImportsSlice(deps),
      ...createRoutingSlice(deps),
      ...createSharingSlice(deps),
      ...createAppsSlice(deps),
      ...createSyncSlice(deps),
    };
  });
}
