import { lazy, Suspense, useEffect } from 'react';
import { useTranslation } from 'react-i18next';
import type { Language } from '../../../shared/settings';
import { useAppStore } from '../store/context';
import { directionOf, selectLanguage, selectTheme } from '../store/ui';
import { AutoTimeline } from './AutoTimeline';
import { ConnectionBar } from './ConnectionBar';
import { ImportPrompt } from './ImportPrompt';
import { LabPanel } from './LabPanel';
import { LinkBanner, Notices } from './Notices';
import { Problems } from './Problems';
import { ServerList } from './ServerList';
import { AppActions, ListToolbar } from './Toolbar';

/**
 * The dialogs are a chunk of their own (Settings alone is most of it, with the schemas it checks
 * values by): none is open at the start, so the window neither fetches nor parses it before its
 * list is on screen. It is read once the list has been drawn and the page is idle, long before a
 * click can open one; a dialog opened sooner waits for it.
 */
const loadDialogs = () => import('./Dialogs');
const Dialogs = lazy(() => loadDialogs().then((module) => ({ default: module.Dialogs })));

function useDialogsReadAfterFirstList(ready: boolean) {
  useEffect(() => {
    if (!ready) return;
    const read = () => void loadDialogs();
    if (typeof requestIdleCallback === 'function') {
      const idle = requestIdleCallback(read, { timeout: 2000 });
      return () => cancelIdleCallback(idle);
    }
    const timer = setTimeout(read, 200);
    return () => clearTimeout(timer);
  }, [ready]);
}

function applyLanguage(root: HTMLElement, language: Language) {
  root.lang = language;
  root.dir = directionOf(language);
}

function applyTheme(root: HTMLElement, theme: 'light' | 'dark') {
  root.dataset.theme = theme;
  root.style.colorScheme = theme;
}

/**
 * Keeps the document in step with the settings: language (i18next and `<html lang dir>`, so
 * Persian and Arabic lay out right to left) and theme (`data-theme`, CSS variables).
 */
function useDocumentSettings(root: HTMLElement) {
  const { i18n } = useTranslation();
  const language = useAppStore(selectLanguage);
  const theme = useAppStore(selectTheme);
  useEffect(() => {
    if (i18n.language === language || i18n.hasResourceBundle(language, 'translation')) {
      if (i18n.language !== language) void i18n.changeLanguage(language);
      applyLanguage(root, language);
      return;
    }
    // A language the window has not shown yet is read first (window.ts): the page turns right to
    // left together with its words, not before them.
    let current = true;
    void i18n.changeLanguage(language).then(() => current && applyLanguage(root, language));
    return () => {
      current = false;
    };
  }, [i18n, language, root]);
  useEffect(() => {
    applyTheme(root, theme);
  }, [root, theme]);
}

export function App({ root = document.documentElement }: { root?: HTMLElement }) {
  const { t } = useTranslation();
  useDocumentSettings(root);
  const ready = useAppStore((s) => s.ready);
  const dialogOpen = useAppStore((s) => s.dialog.kind !== 'none');
  useDialogsReadAfterFirstList(ready);
  return (
    <div className="app">
      <a className="skip-link" href="#server-list">
        {t('app.skipToList')}
      </a>
      <header className="topbar">
        <div className="brand">
          <span className="brand-mark" aria-hidden="true" />
          <span className="brand-name">{t('app.name')}</span>
        </div>
        <ConnectionBar />
        <AppActions />
      </header>
      <LinkBanner />
      <Problems />
      <main className="layout">
        <section className="servers-pane" aria-label={t('list.label')}>
          <ListToolbar />
          {ready ? <ServerList /> : <p className="loading">{t('app.loading')}</p>}
        </section>
        <aside className="side-pane">
          <AutoTimeline />
          <LabPanel />
        </aside>
      </main>
      {dialogOpen && (
        <Suspense fallback={null}>
          <Dialogs />
        </Suspense>
      )}
      <ImportPrompt />
      <Notices />
    </div>
  );
}
