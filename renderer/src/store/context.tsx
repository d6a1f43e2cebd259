import { createContext, type ReactNode, useContext } from 'react';
import { useStore } from 'zustand';
import type { AppState, AppStore } from './types';

const StoreContext = createContext<AppStore | null>(null);

export function StoreProvider({ store, children }: { store: AppStore; children: ReactNode }) {
  return <StoreContext.Provider value={store}>{children}</StoreContext.Provider>;
}

export function useAppStoreApi(): AppStore {
  const store = useContext(StoreContext);
  if (!store) throw new Error('useAppStore needs a <StoreProvider> above it');
  return store;
}

/** Reads the store; wrap selectors that build arrays or objects in `useShallow`. */
export function useAppStore<T>(selector: (state: AppState) => T): T {
  return useStore(useAppStoreApi(), selector);
}
