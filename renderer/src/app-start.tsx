/**
 * The app's window, started on the link main.ts opened: the store, the first language's words and
 * React's first frame. The snapshot is on its way meanwhile (the host pushes it on connect).
 */
import type { i18n } from 'i18next';
import { StrictMode, startTransition } from 'react';
import { createRoot } from 'react-dom/client';
import { I18nextProvider } from 'react-i18next';
import { MissingTokenError, type PickedClient } from './client/pick';
import { App } from './components/App';
import { createWindowI18n } from './i18n/window';
import { animationFrames, createAppStore } from './store';
import { StoreProvider } from './store/context';
import { matchLanguage, selectLanguage } from './store/ui';
// The bundled faces, each subset loaded by its unicode-range (styles.css says which goes where).
import './fonts/emoji-faces.css';
import './fonts/cjk-faces.css';
import '@fontsource/noto-color-emoji/400.css';
import '@fontsource/vazirmatn/400.css';
import '@fontsource/vazirmatn/600.css';
import '@fontsource/noto-sans-sc/400.css';
import './styles.css';

const container = document.getElementById('root')!;

/** What the window shows when it cannot start: the reason, in the system's language when it can. */
export function showFatal(error: unknown): void {
  // In English when even the words of the system's language cannot be read.
  void createWindowI18n(matchLanguage(navigator.language))
    .catch(() => createWindowI18n('en'))
    .then((i18n) => showFatalIn(i18n, error));
}

function showFatalIn(i18n: i18n, error: unknown) {
  const message = error instanceof MissingTokenError ? i18n.t('fatal.noToken') : error instanceof Error ? error.message : String(error);
  container.innerHTML = '';
  const box = document.createElement('div');
  box.className = 'fatal';
  const title = document.createElement('h1');
  title.textContent = i18n.t('fatal.title');
  const text = document.createElement('p');
  text.textContent = message;
  box.append(title, text);
  container.append(box);
}

export function startApp(picked: PickedClient): void {
  try {
    startOn(picked);
  } catch (error) {
    showFatal(error);
  }
}

function startOn(picked: PickedClient): void {
  const darkQuery = window.matchMedia('(prefers-color-scheme: dark)');
  const store = createAppStore(picked.client, { systemLanguage: navigator.language, prefersDark: darkQuery.matches }, animationFrames(window));
  darkQuery.addEventListener('change', (event) => store.getState().setPrefersDark(event.matches));
  store.getState().setLink(picked.link());
  picked.onLink((link) => store.getState().setLink(link));
  // The snapshot is taken first (pushed by the host, or asked for under Electron): it is made while
  // the first language's words load.
  store.getState().start();
  void createWindowI18n(selectLanguage(store.getState())).then((i18n) => {
    // As a transition React draws the first frame in slices, so the socket's "open" (and with it
    // the snapshot's request) is not held up behind it.
    const root = createRoot(container);
    startTransition(() =>
      root.render(
        <StrictMode>
          <I18nextProvider i18n={i18n}>
            <StoreProvider store={store}>
              <App />
            </StoreProvider>
          </I18nextProvider>
        </StrictMode>,
      ),
    );
  }, showFatal);
}
