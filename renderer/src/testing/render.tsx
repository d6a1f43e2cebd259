/** Test-only: renders UI with a store around a fake client, as main.tsx does around the real one. */
import { render, type RenderResult } from '@testing-library/react';
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

export function renderWithStore(ui: ReactNode, snapshot: AppSnapshot, options: { language?: Language } = {}): Rendered {
  const client = createFakeClient(snapshot);
  const frames = manualFrames();
  const store = createAppStore(client, { systemLanguage: options.language ?? 'en-US', prefersDark: false }, frames);
  store.getState().applySnapshot(client.snapshot);
  store.getState().follow();
  const i18n = createI18n(options.language ?? 'en');
  const result = render(
    <I18nextProvider i18n={i18n}>
      <StoreProvider store={store}>{ui}</StoreProvider>
    </I18nextProvider>,
  );
  return { ...result, store, client, frames };
}
