import { useMemo, useRef } from 'react';
import { Trans, useTranslation } from 'react-i18next';
import type { ServerId } from '../../../shared/domain/server';
import { useFormat } from '../hooks/useFormat';
import { useMarkDraft } from '../hooks/useMarkDraft';
import { exclusionLock } from '../store/auto';
import { useAppStore } from '../store/context';
import { countryOf, selectServerIndex } from '../store/servers.selectors';
import { Flag } from './Flag';
import { FlaggedName } from './FlaggedName';
import { RefusalError } from './FormParts';
import { Modal } from './Modal';
import { PingText } from './ServerRow';

const LOCK_REASON_ID = 'group-exclude-lock-reason';
const IN_AUTO_HINT_ID = 'group-exclude-in-auto-hint';
const NO_IDS: ServerId[] = [];

/**
 * The members a server group will not pick (its own marks), beside those the user excluded from
 * Auto in their own subscriptions, which no group takes either: those show checked and locked,
 * with where to unmark them. The last member neither list marks cannot be marked; Done sends the
 * group's marks, Cancel (or Escape) nothing.
 */
export function GroupExcludeDialog({ group: name }: { group: string }) {
  const { t, i18n } = useTranslation();
  const format = useFormat();
  const group = useAppStore((s) => s.auto.groups?.find((g) => g.name === name));
  const index = useAppStore(selectServerIndex);
  const statuses = useAppStore((s) => s.statuses);
  const setGroupExcluded = useAppStore((s) => s.setGroupExcluded);
  const closeDialog = useAppStore((s) => s.closeDialog);
  const initial = group?.excluded ?? NO_IDS;
  const memberIds = group?.memberIds ?? NO_IDS;
  const inAuto = useMemo(() => new Set(group?.excludedInAuto ?? NO_IDS), [group?.excludedInAuto]);
  const { marked, toggle, saving, error, done } = useMarkDraft({ initial, ids: memberIds, save: (marks) => setGroupExcluded(name, marks), close: closeDialog });
  const cancel = useRef<HTMLButtonElement>(null);

  const allInAuto = memberIds.length > 0 && memberIds.every((id) => inAuto.has(id));
  const either = new Set([...marked, ...inAuto]);
  // Marks in Auto that take every member lock nothing: the group then chooses among them.
  const { lockedId } = allInAuto ? { lockedId: null } : exclusionLock(memberIds, either);
  const markedCount = memberIds.filter((id) => either.has(id)).length;
  const pickMarked = group?.pick != null && marked.has(group.pick) && !allInAuto;

  if (!group) return null;
  return (
    <Modal labelledBy="group-exclude-title" describedBy="group-exclude-intro" onCancel={closeDialog} initialFocus={cancel} className="exclude-dialog">
      <header className="modal-header">
        <h2 id="group-exclude-title">{t('groupExclude.title')}</h2>
        <p className="muted">
          <Trans i18nKey="groupExclude.subtitle" values={{ name }} components={{ name: <bdi /> }} />
        </p>
      </header>
      <p id="group-exclude-intro" className="modal-intro">
        {t('groupExclude.intro')}
      </p>
      <p className="exclude-count" aria-live="polite">
        {t('groupExclude.count', { marked: format.number(markedCount), total: format.number(memberIds.length) })}
      </p>
      {memberIds.some((id) => inAuto.has(id)) && (
        <p id={IN_AUTO_HINT_ID} className="muted">
          {t('groupExclude.inAutoHint')}
        </p>
      )}
      <ul className="exclude-list">
        {memberIds.map((id) => {
          const server = index.get(id);
          const locked = id === lockedId;
          const markedInAuto = inAuto.has(id);
          const status = statuses[id];
          const country = countryOf(status?.ipInfo, i18n.language);
          const describedBy = [markedInAuto ? IN_AUTO_HINT_ID : null, locked ? LOCK_REASON_ID : null].filter(Boolean).join(' ') || undefined;
          return (
            <li key={id} className={locked || markedInAuto ? 'locked' : undefined}>
              <label>
                <input
                  type="checkbox"
                  checked={markedInAuto || marked.has(id)}
                  disabled={locked || markedInAuto}
                  aria-describedby={describedBy}
                  onChange={(event) => toggle(id, event.target.checked)}
                />
                <bdi className="server-name">
                  <FlaggedName name={server?.name ?? id} />
                </bdi>
                {id === group.pick && <span className="chip chip-current">{t('groupExclude.current')}</span>}
                {markedInAuto && <span className="chip">{t('groupExclude.inAuto')}</span>}
                <span className="spacer" />
                {country && <Flag code={country.code} name={country.name} />}
                <PingText status={status} />
              </label>
              {locked && (
                <p id={LOCK_REASON_ID} className="lock-reason">
                  {t('groupExclude.lastUnmarked')}
                </p>
              )}
            </li>
          );
        })}
      </ul>
      {allInAuto && (
        <p className="note" role="note">
          {t('groupExclude.allInAuto')}
        </p>
      )}
      {pickMarked && (
        <p className="note" role="note">
          {t('groupExclude.currentMarked')}
        </p>
      )}
      <RefusalError refusal={error} what={t('notice.exclude')} />
      <footer className="modal-footer">
        <button ref={cancel} type="button" className="button" onClick={closeDialog}>
          {t('common.cancel')}
        </button>
        <button type="button" className="button primary" disabled={saving} onClick={() => void done()}>
          {t('common.done')}
        </button>
      </footer>
    </Modal>
  );
}
