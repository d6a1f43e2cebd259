/** Test-only: renders UI with a store around a fake client, as app-start.tsx does around the real one. */
import { render, type RenderResult } from '@testing-library/react';
import type { i18n } from 'i18next';
import type { ReactNode } from 'react';
import { I18nextProvider } from 'react-i18next';
import type { AppSnapshot } from '../../../shared/ipc/contract';
import type { Language } from '../../../shared/settings';
import { createI18n } from '../i18n';
import { createAppStore, type AppStore } from '../store';
import { StoreProvider } from '../store/context';
import { createFakeClient, type FakeClient } from './fake-client';
import { type ManualFrames, manualFrames } from './frames';

export interface Rendered extends RenderResult {
  store: AppStore;
  client: FakeClient;
  /** The store applies the host's bursts on `frames.next()` (wrap it in act()). */
  frames: ManualFrames;
}

/** `i18n`: the window's own instance (window.ts) instead of one with every language at hand. */
export function renderWithStore(ui: ReactNode, snapshot: AppSnapshot, options: { language?: Language; i18n?: i18n } = {}): Rendered {
  const client = createFakeClient(snapshot);
  const frames = manualFrames();
  const store = createAppStore(client, { systemLanguage: options.language ?? 'en-US', prefersDark: false }, frames);
  store.getState().applySnapshot(client.snapshot);
  store.getState().follow();
  const i18n = options.i18n ?? createI18n(options.language ?? 'en');
  const result = render(
    <I18nextProvider i18n={i18n}>
      <StoreProvider store={store}>{ui}</StoreProvider>
    </I18nextProvider>,
  );
  return { ...result, store, client, frames };
}
