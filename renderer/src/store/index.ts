import { createStore } from 'zustand/vanilla';
import type { VpnClient } from '../../../shared/ipc/contract';
import { createAutoSlice } from './auto';
import { createConnectionSlice } from './connection';
import { createDialogsSlice } from './dialogs';
import { createLabSlice } from './lab';
import { createServersSlice } from './servers';
import { createSettingsSlice } from './settings';
import { createSyncSlice } from './sync';
import { createTestProgressSlice } from './testProgress';
import type { AppState, AppStore } from './types';
import { createUiSlice, type UiEnvironment } from './ui';

export type { AppState, AppStore } from './types';

/** The one store of the window, built from its slices around the contract client. */
export function createAppStore(client: VpnClient, env: UiEnvironment): AppStore {
  return createStore<AppState>()((set, get) => {
    const deps = { set, get, client };
    return {
      ...createServersSlice(deps),
      ...createConnectionSlice(deps),
      ...createAutoSlice(deps),
      ...createDialogsSlice(deps),
      ...createSettingsSlice(deps),
      ...createTestProgressSlice(deps),
      ...createUiSlice(deps, env),
      ...createLabSlice(deps),
      ...createSyncSlice(deps),
    };
  });
}
