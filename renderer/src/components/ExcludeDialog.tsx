import { useMemo, useRef, useState } from 'react';
import { Trans, useTranslation } from 'react-i18next';
import type { SubscriptionId } from '../../../shared/domain/server';
import { useFormat } from '../hooks/useFormat';
import { useMarkDraft } from '../hooks/useMarkDraft';
import { exclusionLock, selectExcludedIds } from '../store/auto';
import { useAppStore } from '../store/context';
import { countryOf, selectSubscription } from '../store/servers.selectors';
import { Flag } from './Flag';
import { Modal } from './Modal';
import { PingText } from './ServerRow';
import { FlaggedName } from './FlaggedName';
import { RefusalError } from './FormParts';

/** More than this many matches are not drawn at once: the search narrows them down. */
const SHOWN_AT_ONCE = 400;
const LOCK_REASON_ID = 'exclude-lock-reason';

/**
 * The servers Auto will not use (spec/auto.md, exclusions): a searchable list of checkboxes, a
 * checked box is a marked server. The last unmarked server cannot be marked. Done sends the marks;
 * Cancel (or Escape) sends nothing.
 */
export function ExcludeDialog({ subscriptionId }: { subscriptionId: SubscriptionId }) {
  const { t, i18n } = useTranslation();
  const format = useFormat();
  const subscription = useAppStore((s) => selectSubscription(s, subscriptionId));
  const initial = useAppStore((s) => selectExcludedIds(s, subscriptionId));
  const statuses = useAppStore((s) => s.statuses);
  const currentId = useAppStore((s) => s.connection.serverId);
  const setExcluded = useAppStore((s) => s.setExcluded);
  const closeDialog = useAppStore((s) => s.closeDialog);
  const [query, setQuery] = useState('');
  const search = useRef<HTMLInputElement>(null);

  const servers = useMemo(() => subscription?.servers ?? [], [subscription]);
  const serverIds = useMemo(() => servers.map((s) => s.id), [servers]);
  const { marked, toggle, saving, error, done } = useMarkDraft({ initial, ids: serverIds, save: (marks) => setExcluded(subscriptionId, marks), close: closeDialog });
  const { lockedId } = exclusionLock(serverIds, marked);
  const needle = query.trim().toLocaleLowerCase();
  const matches = needle
    ? servers.filter((s) => s.name.toLocaleLowerCase().includes(needle) || (statuses[s.id]?.ipInfo?.countryCode ?? '').toLowerCase() === needle)
    : servers;
  const shown = matches.slice(0, SHOWN_AT_ONCE);
  const markedCount = serverIds.filter((id) => marked.has(id)).length;
  const currentMarked = currentId !== null && marked.has(currentId) && serverIds.includes(currentId);

  if (!subscription) return null;
  return (
    <Modal labelledBy="exclude-title" describedBy="exclude-intro" onCancel={closeDialog} initialFocus={search} className="exclude-dialog">
      <header className="modal-header">
        <h2 id="exclude-title">{t('exclude.title')}</h2>
        <p className="muted">
          <Trans i18nKey="exclude.subtitle" values={{ name: subscription.name }} components={{ name: <bdi /> }} />
        </p>
      </header>
      <p id="exclude-intro" className="modal-intro">
        {t('exclude.intro')}
      </p>
      <label className="search-field wide">
        <span className="visually-hidden">{t('exclude.search')}</span>
        <input ref={search} type="search" placeholder={t('exclude.search')} value={query} onChange={(event) => setQuery(event.target.value)} />
      </label>
      <p className="exclude-count" aria-live="polite">
        {t('exclude.count', { marked: format.number(markedCount), total: format.number(serverIds.length) })}
      </p>
      <ul className="exclude-list">
        {shown.map((server) => {
          const locked = server.id === lockedId;
          const status = statuses[server.id];
          const country = countryOf(status?.ipInfo, i18n.language);
          return (
            <li key={server.id} className={locked ? 'locked' : undefined}>
              <label>
                <input
                  type="checkbox"
                  checked={marked.has(server.id)}
                  disabled={locked}
                  aria-describedby={locked ? LOCK_REASON_ID : undefined}
                  onChange={(event) => toggle(server.id, event.target.checked)}
                />
                <bdi className="server-name">
                  <FlaggedName name={server.name} />
                </bdi>
                {server.id === currentId && <span className="chip chip-current">{t('exclude.current')}</span>}
                <span className="spacer" />
                {country && <Flag code={country.code} name={country.name} />}
                <PingText status={status} />
              </label>
              {locked && (
                <p id={LOCK_REASON_ID} className="lock-reason">
                  {t('exclude.lastUnmarked')}
                </p>
              )}
            </li>
          );
        })}
        {shown.length === 0 && <li className="muted">{t('exclude.noMatch')}</li>}
      </ul>
      {matches.length > shown.length && <p className="muted">{t('exclude.more', { count: matches.length - shown.length })}</p>}
      {currentMarked && (
        <p className="note" role="note">
          {t('exclude.currentMarked')}
        </p>
      )}
      <RefusalError refusal={error} what={t('notice.exclude')} />
      <footer className="modal-footer">
        <button type="button" className="button" onClick={closeDialog}>
          {t('common.cancel')}
        </button>
        <button type="button" className="button primary" disabled={saving} onClick={() => void done()}>
          {t('common.done')}
        </button>
      </footer>
    </Modal>
  );
}
