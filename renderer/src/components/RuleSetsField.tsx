/**
 * The Routing page's rule sets: the user's own and the ready-made ones (off until chosen), each
 * with its outbound, whether it stands in for the region's shipped list, and the copy in force
 * (date, size, entry count) or why its last update failed, as the engine reports them.
 */
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { RuleSetStatus } from '../../../shared/domain/routing';
import { ROUTE_OUTBOUNDS } from '../../../shared/routing';
import { LIST_FORMATS, RULE_SET_CATALOGUE, RULE_SET_FORMATS, type RuleSet } from '../../../shared/rule-sets';
import { useFormat } from '../hooks/useFormat';

interface NewSet {
  name: string;
  url: string;
  format: RuleSet['format'];
  list: string;
  outbound: RuleSet['outbound'];
}

const EMPTY: NewSet = { name: '', url: '', format: 'geosite-dat', list: '', outbound: 'direct' };

export function RuleSetsField({
  sets,
  statuses,
  onChange,
  errors,
}: {
  sets: RuleSet[];
  statuses: readonly RuleSetStatus[];
  onChange: (sets: RuleSet[]) => void;
  errors: string[];
}) {
  const { t } = useTranslation();
  const format = useFormat();
  const [adding, setAdding] = useState<NewSet | null>(null);
  const notChosen = RULE_SET_CATALOGUE.filter((c) => !sets.some((s) => s.id === c.id));
  const [readyMade, setReadyMade] = useState('');
  const rows = sets.map((set) => ({ set, readyMade: RULE_SET_CATALOGUE.some((c) => c.id === set.id) }));
  const change = (set: RuleSet, patch: Partial<RuleSet>) => {
    const next = { ...set, ...patch };
    onChange(sets.some((s) => s.id === set.id) ? sets.map((s) => (s.id === set.id ? next : s)) : [...sets, next]);
  };
  const add = () => {
    if (!adding) return;
    const set: RuleSet = {
      id: `set-${Date.now().toString(36)}`,
      name: adding.name.trim(),
      url: adding.url.trim(),
      format: adding.format,
      ...(LIST_FORMATS.has(adding.format) ? { list: adding.list.trim() } : {}),
      outbound: adding.outbound,
      updateHours: 24,
      enabled: true,
      inPlaceOfPreset: false,
    };
    onChange([...sets, set]);
    setAdding(null);
  };
  const useReadyMade = () => {
    const set = RULE_SET_CATALOGUE.find((c) => c.id === readyMade);
    if (set) onChange([...sets, { ...set, enabled: true }]);
    setReadyMade('');
  };

  return (
    <fieldset>
      <legend>{t('routing.ruleSets.title')}</legend>
      <p className="hint">{t('routing.ruleSets.hint')}</p>
      {rows.length > 0 && (
        <ul className="rule-sets">
          {rows.map(({ set, readyMade }) => {
            const status = statuses.find((s) => s.id === set.id);
            return (
              <li key={set.id} className="rule-set" aria-label={set.name}>
                <label className="check-field">
                  <input type="checkbox" checked={set.enabled} aria-label={t('routing.ruleSets.use', { name: set.name })} onChange={(e) => change(set, { enabled: e.target.checked })} />
                  <span dir="auto">{set.name}</span>
                </label>
                <span className="hint" dir="ltr">
                  {set.url}
                  {set.list ? ` : ${set.list}` : ''}
                </span>
                <div className="field-row">
                  <label>
                    <span className="visually-hidden">{t('routing.outbound')}</span>
                    <select value={set.outbound} onChange={(e) => change(set, { outbound: e.target.value as RuleSet['outbound'] })}>
                      {ROUTE_OUTBOUNDS.map((outbound) => (
                        <option key={outbound} value={outbound}>
                          {t('routing.outbound')}: {t(`routing.outboundName.${outbound}`)}
                        </option>
                      ))}
                    </select>
                  </label>
                  <label className="check-field">
                    <input type="checkbox" checked={set.inPlaceOfPreset} onChange={(e) => change(set, { inPlaceOfPreset: e.target.checked })} />
                    <span>{t('routing.ruleSets.inPlaceOfPreset')}</span>
                  </label>
                  <label className="field">
                    <span>{t('routing.ruleSets.every')}</span>
                    <input type="number" min={1} max={720} value={set.updateHours} onChange={(e) => change(set, { updateHours: Number(e.target.value) })} />
                  </label>
                  {!readyMade && (
                    <button type="button" className="button small" aria-label={t('routing.ruleSets.remove', { name: set.name })} onClick={() => onChange(sets.filter((s) => s.id !== set.id))}>
                      ×
                    </button>
                  )}
                </div>
                {set.enabled && (
                  <p className="hint rule-set-status" role="status">
                    {status?.copy
                      ? t('routing.ruleSets.copy', { date: format.dateTime(status.copy.fetchedAt), size: format.bytes(status.copy.bytes), count: format.number(status.copy.entries) }) +
                        (status.copy.viaTunnel ? ` (${t('routing.ruleSets.viaTunnel')})` : '')
                      : t('routing.ruleSets.notFetched')}
                  </p>
                )}
                {set.enabled && status?.lastError && (
                  <p className="field-error rule-set-error">
                    {t('routing.ruleSets.failed', { error: '' })}
                    <span dir="ltr">{status.lastError}</span>
                  </p>
                )}
                {set.enabled && status?.unusable && (
                  <p className="field-error rule-set-error">
                    {t('routing.ruleSets.unusable', { reason: '' })}
                    <span dir="ltr">{status.unusable}</span>
                  </p>
                )}
              </li>
            );
          })}
        </ul>
      )}

      <div className="field-row">
        {notChosen.length > 0 && (
          <label className="field">
            <span>{t('routing.ruleSets.readyMade')}</span>
            <select value={readyMade} onChange={(e) => setReadyMade(e.target.value)}>
              <option value="">{t('routing.ruleSets.pick')}</option>
              {notChosen.map((c) => (
                <option key={c.id} value={c.id}>
                  {c.name}
                </option>
              ))}
            </select>
          </label>
        )}
        {notChosen.length > 0 && (
          <button type="button" className="button" disabled={!readyMade} onClick={useReadyMade}>
            {t('routing.ruleSets.useReadyMade')}
          </button>
        )}
        {!adding && (
          <button type="button" className="button" onClick={() => setAdding(EMPTY)}>
            {t('routing.ruleSets.add')}
          </button>
        )}
      </div>
      {adding && (
        <div className="field-row rule-set-add">
          <label className="field">
            <span>{t('routing.ruleSets.name')}</span>
            <input type="text" value={adding.name} onChange={(e) => setAdding({ ...adding, name: e.target.value })} />
          </label>
          <label className="field">
            <span>{t('routing.ruleSets.url')}</span>
            <input type="url" dir="ltr" spellCheck={false} value={adding.url} onChange={(e) => setAdding({ ...adding, url: e.target.value })} />
          </label>
          <label className="field">
            <span>{t('routing.ruleSets.format')}</span>
            <select value={adding.format} onChange={(e) => setAdding({ ...adding, format: e.target.value as RuleSet['format'] })}>
              {RULE_SET_FORMATS.map((f) => (
                <option key={f} value={f}>
                  {t(`routing.ruleSets.formatName.${f}`)}
                </option>
              ))}
            </select>
          </label>
          {LIST_FORMATS.has(adding.format) && (
            <label className="field">
              <span>{t('routing.ruleSets.list')}</span>
              <input type="text" dir="ltr" spellCheck={false} value={adding.list} placeholder="ru-blocked" onChange={(e) => setAdding({ ...adding, list: e.target.value })} />
            </label>
          )}
          <label className="field">
            <span>{t('routing.outbound')}</span>
            <select value={adding.outbound} onChange={(e) => setAdding({ ...adding, outbound: e.target.value as RuleSet['outbound'] })}>
              {ROUTE_OUTBOUNDS.map((outbound) => (
                <option key={outbound} value={outbound}>
                  {t(`routing.outboundName.${outbound}`)}
                </option>
              ))}
            </select>
          </label>
          <button type="button" className="button" disabled={!adding.name.trim() || !adding.url.trim()} onClick={add}>
            {t('routing.ruleSets.addThis')}
          </button>
        </div>
      )}
      {errors.length > 0 && (
        <ul className="field-error routing-errors" id="err-routing-rule-sets">
          {errors.map((message) => (
            <li key={message} dir="ltr">
              {message}
            </li>
          ))}
        </ul>
      )}
    </fieldset>
  );
}
