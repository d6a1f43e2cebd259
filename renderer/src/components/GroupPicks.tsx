import { useTranslation } from 'react-i18next';
import type { GroupPickSnapshot } from '../../../shared/domain/auto';
import type { ServerId } from '../../../shared/domain/server';
import { isolate } from '../format/format';
import { useFormat } from '../hooks/useFormat';
import { episodes } from '../store/auto.timeline';
import { useAppStore } from '../store/context';
import { selectServerIndex } from '../store/servers.selectors';
import { Flag } from './Flag';

const GROUP_EPISODES_SHOWN = 5;
const GROUP_REASONS = ['current-silent', 'return', 'auto-on', 'excluded', 'server-removed', 'restored'] as const;

/**
 * Each server group's pick on the Auto timeline: the server with its exit's flag and ping, why
 * Auto's rules chose it, or that the group is down (its sites refused) or has no member yet; and
 * the group's latest decisions, told as the main connection's are.
 */
export function GroupPicks({ renderEpisode }: { renderEpisode: (episode: ReturnType<typeof episodes>[number]) => React.ReactNode }) {
  const { t } = useTranslation();
  const groups = useAppStore((s) => s.auto.groups) ?? [];
  if (groups.length === 0) return null;
  return (
    <section className="group-picks" aria-labelledby="group-picks-title">
      <h3 id="group-picks-title" className="decisions-title">
        {t('groupPicks.title')}
      </h3>
      <ul className="group-pick-list">
        {groups.map((group) => (
          <GroupPick key={group.name} group={group} renderEpisode={renderEpisode} />
        ))}
      </ul>
    </section>
  );
}

function GroupPick({ group, renderEpisode }: { group: GroupPickSnapshot; renderEpisode: (episode: ReturnType<typeof episodes>[number]) => React.ReactNode }) {
  const { t } = useTranslation();
  const format = useFormat();
  const index = useAppStore(selectServerIndex);
  const status = useAppStore((s) => (group.pick ? s.statuses[group.pick] : undefined));
  const nameOf = (id: ServerId) => isolate(index.get(id)?.name ?? id);
  const name = isolate(group.name);
  const list = episodes(group.timeline);
  const country = status?.ipInfo?.countryCode ?? null;
  const openDialog = useAppStore((s) => s.openDialog);
  const notUsed = group.memberIds.filter((id) => group.excluded.includes(id) || group.excludedInAuto.includes(id)).length;
  const reason = group.reason !== null && (GROUP_REASONS as readonly string[]).includes(group.reason) ? t(`groupPicks.reason.${group.reason}`) : null;
  return (
    <li className={`group-pick state-${group.state}`} data-group={group.name}>
      {group.state === 'on' && group.pick ? (
        <div className="group-pick-line">
          <span>{t('groupPicks.on', { group: name, server: nameOf(group.pick) })}</span>{' '}
          {country && <Flag code={country} name={status?.ipInfo?.country ?? country} />}{' '}
          <span className="ping">{status?.delayMs != null ? isolate(format.ms(status.delayMs)) : t('groupPicks.noPing')}</span>
          {reason && <div className="muted">{t('groupPicks.why', { reason })}</div>}
        </div>
      ) : (
        <div className="group-pick-line note">{t(group.state === 'down' ? 'groupPicks.down' : 'groupPicks.none', { group: name })}</div>
      )}
      <div className="group-pick-marks">
        {notUsed > 0 && <span className="muted">{t('groupExclude.summary', { marked: format.number(notUsed), total: format.number(group.memberIds.length) })}</span>}{' '}
        {group.memberIds.length > 0 && (
          <button type="button" className="button small" aria-label={t('groupExclude.buttonLabel', { group: group.name })} onClick={() => openDialog({ kind: 'exclude-group-members', group: group.name })}>
            {t('groupExclude.button')}
          </button>
        )}
      </div>
      {list.length > 0 && (
        <ol className="decision-list" aria-label={t('groupPicks.decisions', { group: group.name })}>
          {list.slice(0, GROUP_EPISODES_SHOWN).map((episode) => renderEpisode(episode))}
        </ol>
      )}
    </li>
  );
}
