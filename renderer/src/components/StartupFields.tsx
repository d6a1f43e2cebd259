import { useTranslation } from 'react-i18next';

export interface StartupDraft {
  startAtLogin: boolean;
  connectOnStart: boolean;
}

/**
 * Start at login and connect on start. Both are the desktop app's to carry out: in a browser
 * (the headless host) they are kept but do nothing, and the section says so.
 */
export function StartupFields({ draft, onChange }: { draft: StartupDraft; onChange(patch: Partial<StartupDraft>): void }) {
  const { t } = useTranslation();
  const desktop = typeof window !== 'undefined' && 'vpn' in window;
  return (
    <fieldset>
      <legend>{t('desktop.startup.section')}</legend>
      <label className="check-field">
        <input type="checkbox" checked={draft.startAtLogin} onChange={(e) => onChange({ startAtLogin: e.target.checked })} />
        <span>{t('desktop.startup.atLogin')}</span>
        <span className="hint">{t('desktop.startup.atLoginHint')}</span>
      </label>
      <label className="check-field">
        <input type="checkbox" checked={draft.connectOnStart} onChange={(e) => onChange({ connectOnStart: e.target.checked })} />
        <span>{t('desktop.startup.connectOnStart')}</span>
        <span className="hint">{t('desktop.startup.connectOnStartHint')}</span>
      </label>
      {!desktop && <p className="hint">{t('desktop.startup.desktopOnly')}</p>}
    </fieldset>
  );
}
