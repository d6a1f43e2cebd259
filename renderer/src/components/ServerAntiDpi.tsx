/**
 * One server's anti-DPI override in its details: the global setting, off, or values of its own
 * (a server that freezes may need a fragment the others do not). Saved on its own button, so the
 * rest of the dialog stays a view.
 */
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { reachedOverUdp, type ServerId } from '../../../shared/domain/server';
import { settingsRefusalText } from '../i18n/validation';
import { useAppStore } from '../store/context';
import { selectServer } from '../store/servers.selectors';
import { type AntiDpiErrors, type OverrideChoice, type OverrideDraft, overrideDraftOf, withServerOverride } from './anti-dpi-form';
import { AntiDpiAvailability, AntiDpiFields } from './AntiDpiFields';

const CHOICES: OverrideChoice[] = ['global', 'off', 'custom'];

export function ServerAntiDpi({ serverId }: { serverId: ServerId }) {
  const { t } = useTranslation();
  const antiDpi = useAppStore((s) => s.settings.antiDpi);
  const saveSettings = useAppStore((s) => s.saveSettings);
  const [draft, setDraft] = useState<OverrideDraft>(() => overrideDraftOf(antiDpi, serverId));
  const [errors, setErrors] = useState<AntiDpiErrors>({});
  const [outcome, setOutcome] = useState<{ tone: 'ok' | 'bad'; text: string } | null>(null);
  const [saving, setSaving] = useState(false);
  const onOff = (on: boolean) => t(on ? 'antiDpi.server.stateOn' : 'antiDpi.server.stateOff');

  const save = async () => {
    const next = withServerOverride(antiDpi, serverId, draft);
    setErrors(next.ok ? {} : next.errors);
    if (!next.ok) {
      setOutcome({ tone: 'bad', text: t('settings.invalid') });
      return;
    }
    setSaving(true);
    const result = await saveSettings({ antiDpi: next.antiDpi });
    setSaving(false);
    setOutcome(result.ok ? { tone: 'ok', text: t('antiDpi.server.saved') } : { tone: 'bad', text: settingsRefusalText(t, result) });
  };

  return (
    <section aria-labelledby="details-anti-dpi" className="server-anti-dpi">
      <h3 id="details-anti-dpi">{t('antiDpi.server.title')}</h3>
      <AntiDpiAvailability />
      <CarriedReach serverId={serverId} />
      <fieldset className="anti-dpi-choice">
        <legend>{t('antiDpi.server.choice')}</legend>
        {CHOICES.map((choice) => (
          <label key={choice} className="check-field">
            <input
              type="radio"
              name={`anti-dpi-${serverId}`}
              value={choice}
              checked={draft.choice === choice}
              onChange={() => {
                setDraft({ ...draft, choice });
                setOutcome(null);
              }}
            />
            <span>{t(`antiDpi.server.${choice}`)}</span>
          </label>
        ))}
        {draft.choice === 'global' && <p className="hint">{t('antiDpi.server.globalNow', { fragment: onOff(antiDpi.fragment.enabled), noise: onOff(antiDpi.noise.enabled) })}</p>}
        {draft.choice === 'off' && <p className="hint">{t('antiDpi.server.offHint')}</p>}
      </fieldset>
      {draft.choice === 'custom' && <AntiDpiFields idPrefix={`anti-dpi-${serverId}`} values={draft.values} errors={errors} onChange={(values) => setDraft({ ...draft, values })} />}
      <div className="server-anti-dpi-actions">
        <button type="button" className="button" disabled={saving} onClick={() => void save()}>
          {saving ? t('common.saving') : t('antiDpi.server.save')}
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

/**
 * A server a second core (sing-box) carries gets the options through the main core, on that
 * core's connection to it (the front's, for a chained one): the fragment reaches a TCP server,
 * the noise a UDP one. Said only where the main core has the option that reaches it; what it
 * lacks, AntiDpiAvailability says.
 */
function CarriedReach({ serverId }: { serverId: ServerId }) {
  const { t } = useTranslation();
  const carried = useAppStore((s) => !!s.carried[serverId]);
  const core = useAppStore((s) => s.core);
  const udp = useAppStore((s) => {
    const server = selectServer(s, serverId);
    const firstHop = (server?.via ? selectServer(s, server.via) : undefined) ?? server;
    return firstHop ? reachedOverUdp(firstHop) : null;
  });
  if (!carried || !core || udp === null || !(udp ? core.antiDpi.noise : core.antiDpi.fragment)) return null;
  const name = `\u2068${core.family === 'xray' ? 'Xray' : core.family} ${core.version}\u2069`;
  return (
    <p className="hint" data-anti-dpi-carried={udp ? 'udp' : 'tcp'}>
      {t(udp ? 'antiDpi.server.carriedUdp' : 'antiDpi.server.carriedTcp', { core: name })}
    </p>
  );
}
