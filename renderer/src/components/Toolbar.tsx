import { useTranslation } from 'react-i18next';
import { useShallow } from 'zustand/react/shallow';
import { useAppStore } from '../store/context';
import { selectProgressView } from '../store/testProgress';
import type { SortMode } from '../store/ui';
import { useFormat } from '../hooks/useFormat';
import { GearIcon, PlusIcon, RetestIcon, SearchIcon } from './icons';

/** Test all (with its progress), add a subscription, settings. */
export function AppActions() {
  const { t } = useTranslation();
  const format = useFormat();
  const progress = useAppStore(useShallow(selectProgressView));
  const { testAll, openDialog } = useAppStore(useShallow((s) => ({ testAll: s.testAll, openDialog: s.openDialog })));
  const ready = useAppStore((s) => s.ready);
  return (
    <div className="app-actions">
      <div className="test-all">
        <button type="button" className="button" disabled={!ready || progress.running} onClick={() => void testAll()}>
          <RetestIcon />
          <span className="collapsible-label">{t('toolbar.testAll')}</span>
        </button>
        {progress.running && (
          <span className="test-progress">
            <span
              className="progress-track"
              role="progressbar"
              aria-label={t('toolbar.progress')}
              aria-valuemin={0}
              aria-valuemax={progress.total || undefined}
              aria-valuenow={progress.total ? progress.done : undefined}
              aria-valuetext={
                progress.total ? t('toolbar.testing', { done: format.number(progress.done), total: format.number(progress.total) }) : t('toolbar.testingStarted')
              }
            >
              <span className="progress-fill" style={{ inlineSize: `${(progress.fraction ?? 0) * 100}%` }} />
            </span>
            <span className="progress-text" aria-hidden="true">
              {progress.total ? t('toolbar.testing', { done: format.number(progress.done), total: format.number(progress.total) }) : t('toolbar.testingStarted')}
            </span>
          </span>
        )}
      </div>
      <button type="button" className="button" disabled={!ready} onClick={() => openDialog({ kind: 'add-subscription' })}>
        <PlusIcon />
        <span className="collapsible-label">{t('toolbar.addSubscription')}</span>
      </button>
      <button type="button" className="icon-button large" aria-label={t('toolbar.settings')} title={t('toolbar.settings')} onClick={() => openDialog({ kind: 'settings' })}>
        <GearIcon />
      </button>
    </div>
  );
}

/** The list's filter and order. */
export function ListToolbar() {
  const { t } = useTranslation();
  const { filter, sort, setFilter, setSort } = useAppStore(
    useShallow((s) => ({ filter: s.filter, sort: s.sort, setFilter: s.setFilter, setSort: s.setSort })),
  );
  return (
    <div className="list-toolbar">
      <label className="search-field">
        <SearchIcon />
        <span className="visually-hidden">{t('toolbar.filter')}</span>
        <input type="search" value={filter} placeholder={t('toolbar.filterPlaceholder')} onChange={(event) => setFilter(event.target.value)} />
      </label>
      <div className="segmented" role="group" aria-label={t('toolbar.sort')}>
        {(['list', 'ping'] as SortMode[]).map((mode) => (
          <button
            key={mode}
            type="button"
            aria-pressed={sort === mode}
            className={sort === mode ? 'segment active' : 'segment'}
            onClick={() => setSort(mode)}
          >
            {t(mode === 'list' ? 'toolbar.sortList' : 'toolbar.sortPing')}
          </button>
        ))}
      </div>
    </div>
  );
}
