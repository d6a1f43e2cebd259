import { useEffect, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { type AppListing, appEntryOf, PER_APP_MODES, type PerAppSettings as PerAppDraft, type PickerApp } from '../../../shared/per-app';
import { useAppStore } from '../store/context';
import { TechnicalText } from './TechnicalText';

export type { PerAppDraft };

const SHOWN = 40;

/**
 * Settings → Apps: in system-wide mode, either the listed apps bypass the VPN or only they use it.
 * Programs are picked from the installed and running ones (names and icons where the system gives
 * them) or named by path; an entry for an app this machine does not have is kept, and said so.
 */
export function PerAppSettings({ draft, onChange, systemWide, error }: { draft: PerAppDraft; onChange: (next: PerAppDraft) => void; systemWide: boolean; error?: string }) {
  const { t } = useTranslation();
  const listApps = useAppStore((s) => s.listApps);
  const [listing, setListing] = useState<AppListing | null>(null);
  const [filter, setFilter] = useState('');
  const [path, setPath] = useState('');
  const [pathError, setPathError] = useState<string | null>(null);
  const list = draft.mode === 'off' ? null : draft.mode;
  const entries = list ? draft[list] : [];
  const asked = [...draft.bypass, ...draft.only].join('\n');

  useEffect(() => {
    let live = true;
    void listApps(asked.split('\n').filter(Boolean)).then((result) => live && result.ok && setListing(result.value));
    return () => {
      live = false;
    };
  }, [listApps, asked]);

  const known = useMemo(() => new Map([...(listing?.running ?? []), ...(listing?.installed ?? [])].map((app) => [app.path, app])), [listing]);
  const add = (entry: string) => list && !entries.includes(entry) && onChange({ ...draft, [list]: [...entries, entry] });
  const remove = (entry: string) => list && onChange({ ...draft, [list]: entries.filter((e) => e !== entry) });
  const addPath = () => {
    if (appEntryOf(path) === null) return setPathError(t('perApp.badPath'));
    setPathError(null);
    add(path.trim());
    setPath('');
  };
  const matching = (apps: PickerApp[]) => apps.filter((app) => `${app.name} ${app.path}`.toLowerCase().includes(filter.trim().toLowerCase())).slice(0, SHOWN);

  return (
    <fieldset className="per-app-settings">
      <legend>{t('perApp.section')}</legend>
      {!systemWide && <p className="hint" role="note">{t('perApp.systemWideOnly')}</p>}
      <label className="field">
        <span>{t('perApp.mode')}</span>
        <select value={draft.mode} onChange={(e) => onChange({ ...draft, mode: e.target.value as PerAppDraft['mode'] })}>
          {PER_APP_MODES.map((mode) => (
            <option key={mode} value={mode}>
              {t(`perApp.modes.${mode}`)}
            </option>
          ))}
        </select>
        <span className="hint">{t(`perApp.hints.${draft.mode}`)}</span>
      </label>
      {list && (
        <>
          <ul className="per-app-list" aria-label={t(`perApp.modes.${list}`)}>
            {entries.length === 0 && <li className="muted">{t('perApp.empty')}</li>}
            {entries.map((entry) => {
              const app = known.get(entry);
              const missing = listing?.present[entry] === false;
              return (
                <li key={entry} data-missing={missing ? 'yes' : 'no'}>
                  {app?.icon && <img src={app.icon} alt="" width={20} height={20} />}
                  {app && <span>{app.name}</span>} <bdi dir="ltr" className={app ? 'muted' : undefined}>{entry}</bdi>
                  {missing && <span className="badge">{t('perApp.notInstalled')}</span>}
                  <button type="button" className="button small" onClick={() => remove(entry)} aria-label={t('perApp.remove', { name: app?.name ?? entry })}>
                    {t('perApp.removeShort')}
                  </button>
                </li>
              );
            })}
          </ul>
          {error && <span className="field-error">{error}</span>}
          <label className="field">
            <span>{t('perApp.filter')}</span>
            <input type="search" value={filter} onChange={(e) => setFilter(e.target.value)} />
          </label>
          {(['installed', 'running'] as const).map((group) => (
            <div key={group} className="per-app-picker">
              <h4>{t(`perApp.${group}`)}</h4>
              {listing === null ? (
                <p className="muted">{t('perApp.loading')}</p>
              ) : listing[group].length === 0 ? (
                <p className="muted">{t('perApp.noneFound')}</p>
              ) : matching(listing[group]).length === 0 ? (
                <p className="muted">{t('perApp.noMatch', { filter: filter.trim() })}</p>
              ) : (
                <ul>
                  {matching(listing[group]).map((app) => (
                    <li key={app.path}>
                      <button type="button" className="button small" disabled={entries.includes(app.path)} onClick={() => add(app.path)} title={app.path}>
                        {app.icon && <img src={app.icon} alt="" width={20} height={20} />}
                        {t('perApp.add', { name: app.name })}
                      </button>
                    </li>
                  ))}
                </ul>
              )}
            </div>
          ))}
          <label className="field">
            <span>{t('perApp.path')}</span>
            <input type="text" dir="ltr" spellCheck={false} value={path} aria-invalid={pathError !== null} onChange={(e) => setPath(e.target.value)} placeholder="/usr/bin/app, app.exe, uid:1001" />
            <span className="hint">
              <TechnicalText text={t('perApp.pathHint')} />
            </span>
            {pathError && <span className="field-error">{pathError}</span>}
          </label>
          <button type="button" className="button" onClick={addPath}>
            {t('perApp.addPath')}
          </button>
        </>
      )}
    </fieldset>
  );
}
