import type { i18n } from 'i18next';
import { StrictMode, startTransition } from 'react';
import { createRoot } from 'react-dom/client';
import { I18nextProvider } from 'react-i18next';
import { MissingTokenError, pickClient } from './client/pick';
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

function showFatal(error: unknown) {
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

try {
  const picked = pickClient(window);
  const darkQuery = window.matchMedia('(prefers-color-scheme: dark)');
  const store = createAppStore(picked.client, { systemLanguage: navigator.language, prefersDark: darkQuery.matches }, animationFrames(window));
  darkQuery.addEventListener('change', (event) => store.getState().setPrefersDark(event.matches));
  store.getState().setLink(picked.link());
  picked.onLink((link) => store.getState().setLink(link));
  // The snapshot is asked for first: the host makes it while the first language's words load.
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
} catch (error) {
  showFatal(error);
}
