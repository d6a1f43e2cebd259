/**
 * A server's chain in its details: reached directly (or as its share link says), or through
 * another server first — its front (whitelist networks let only some servers through; the one
 * behind it gives the exit). Saved on its own button, as the anti-DPI override is.
 */
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { ServerId } from '../../../shared/domain/server';
import type { ListServer } from '../../../shared/ipc/contract';
import { settingsRefusalText } from '../i18n/validation';
import { useAppStore } from '../store/context';
import { selectServerIndex } from '../store/servers.selectors';
import { FlaggedName } from './FlaggedName';

/** '' keeps the chain the share link gives (none when it gives none). */
type FrontChoice = ServerId | '';

/** Servers that can be a front: any other one that is not reached through a front itself (one front per chain). */
export function frontCandidates(index: ReadonlyMap<ServerId, ListServer>, serverId: ServerId): ListServer[] {
  return [...index.values()].filter((s) => s.id !== serverId && s.via === undefined);
}

export function ServerChain({ serverId }: { serverId: ServerId }) {
  const { t } = useTranslation();
  const chains = useAppStore((s) => s.settings.chains);
  const index = useAppStore(selectServerIndex);
  const saveSettings = useAppStore((s) => s.saveSettings);
  const [choice, setChoice] = useState<FrontChoice>(() => chains[serverId] ?? '');
  const [outcome, setOutcome] = useState<{ tone: 'ok' | 'bad'; text: string } | null>(null);
  const [saving, setSaving] = useState(false);
  const server = index.get(serverId);
  const front = server?.via ? index.get(server.via) : undefined;

  const save = async () => {
    const { [serverId]: _, ...others } = chains;
    setSaving(true);
    const result = await saveSettings({ chains: choice === '' ? others : { ...others, [serverId]: choice } });
    setSaving(false);
    setOutcome(result.ok ? { tone: 'ok', text: t('chain.saved') } : { tone: 'bad', text: settingsRefusalText(t, result) });
  };

  return (
    <section aria-labelledby="details-chain" className="server-chain">
      <h3 id="details-chain">{t('chain.title')}</h3>
      <p className="chain-now" data-front={server?.via ?? ''}>
        {server?.via ? (
          <>
            {t('chain.through')}{' '}
            <bdi>
              <FlaggedName name={front?.name ?? server.via} />
            </bdi>
          </>
        ) : (
          t('chain.direct')
        )}
      </p>
      <label className="field">
        <span>{t('chain.front')}</span>
        <select
          value={choice}
          onChange={(event) => {
            setChoice(event.target.value);
            setOutcome(null);
          }}
        >
          <option value="">{t('chain.asLink')}</option>
          {frontCandidates(index, serverId).map((candidate) => (
            <option key={candidate.id} value={candidate.id}>
              {candidate.name}
            </option>
          ))}
        </select>
      </label>
      <p className="hint">{t('chain.hint')}</p>
      <div className="server-chain-actions">
        <button type="button" className="button" disabled={saving} onClick={() => void save()}>
          {saving ? t('common.saving') : t('chain.save')}
        </button>
        {outcome && (
          <span role="status" className={outcome.tone === 'bad' ? 'field-error' : 'hint'}>
            {outcome.text}
          </span>
        )}
      </div>
    </section>
  );
}
