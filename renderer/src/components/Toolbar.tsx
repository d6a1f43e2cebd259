import { ProgressTrack } from './ProgressTrack';
import { useTranslation } from 'react-i18next';
import { useShallow } from 'zustand/react/shallow';
import { useAppStore } from '../store/context';
import { selectProgressView } from '../store/testProgress';
import type { SortMode } from '../store/ui';
import { useFormat } from '../hooks/useFormat';
import { GearIcon, PlusIcon, RetestIcon, SearchIcon } from './icons';
import { SelectionActions, SpeedTestAction, SpeedTestProgressView } from './SpeedTest';

/**
 * "Testing 1,234 of 5,000" and its bar. It sits in the list's toolbar, not in the top bar: there
 * its changing width squeezed the connection summary and the proxy addresses out of sight.
 */
function TestProgressView() {
  const { t } = useTranslation();
  const format = useFormat();
  const progress = useAppStore(useShallow(selectProgressView));
  if (!progress.running) return null;
  const text = progress.total ? t('toolbar.testing', { done: format.number(progress.done), total: format.number(progress.total) }) : t('toolbar.testingStarted');
  return (
    <span className="test-progress">
      <ProgressTrack label={t('toolbar.progress')} done={progress.total ? progress.done : null} total={progress.total || null} fraction={progress.fraction ?? 0} text={text} />
    </span>
  );
}

/** Test all, the speed test, add a subscription, settings. */
export function AppActions() {
  const { t } = useTranslation();
  const running = useAppStore((s) => s.testProgress.running);
  const { testAll, openDialog } = useAppStore(useShallow((s) => ({ testAll: s.testAll, openDialog: s.openDialog })));
  const ready = useAppStore((s) => s.ready);
  return (
    <div className="app-actions">
      {/* On a narrow window the labels become icons: the tooltip and the accessible name stay. */}
      <button type="button" className="button" disabled={!ready || running} title={t('toolbar.testAll')} aria-label={t('toolbar.testAll')} onClick={() => void testAll()}>
        <RetestIcon />
        <span className="collapsible-label">{t('toolbar.testAll')}</span>
      </button>
      <SpeedTestAction />
      <button type="button" className="button" disabled={!ready} title={t('toolbar.addSubscription')} aria-label={t('toolbar.addSubscription')} onClick={() => openDialog({ kind: 'add-subscription' })}>
        <PlusIcon />
        <span className="collapsible-label">{t('toolbar.addSubscription')}</span>
      </button>
      <button type="button" className="icon-button large" aria-label={t('toolbar.settings')} title={t('toolbar.settings')} onClick={() => openDialog({ kind: 'settings' })}>
        <GearIcon />
      </button>
    </div>
  );
}

const SORT_LABELS: Record<SortMode, string> = { list: 'toolbar.sortList', ping: 'toolbar.sortPing', speed: 'toolbar.sortSpeed' };

/** The list's filter and order, the selected servers' actions, and how far Test all and the speed test have got. */
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
        {(['list', 'ping', 'speed'] as SortMode[]).map((mode) => (
          <button
            key={mode}
            type="button"
            aria-pressed={sort === mode}
            className={sort === mode ? 'segment active' : 'segment'}
            onClick={() => setSort(mode)}
          >
            {t(SORT_LABELS[mode])}
          </button>
        ))}
      </div>
      <SelectionActions />
      <TestProgressView />
      <SpeedTestProgressView />
    </div>
  );
}
