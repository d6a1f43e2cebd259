import { useTranslation } from 'react-i18next';

export interface StartupDraft {
  startAtLogin: boolean;
  connectOnStart: boolean;
}

/**
 * Start at login and connect on start. Both are the desktop app's to carry out: in a browser
 * (the headless host) they are kept but do nothing, and the section says so.
 */
/** `titled`: with its own heading; false on a page the tab already names "Start-up". */
export function StartupFields({ draft, onChange, titled = true }: { draft: StartupDraft; onChange(patch: Partial<StartupDraft>): void; titled?: boolean }) {
  const { t } = useTranslation();
  const desktop = typeof window !== 'undefined' && 'vpn' in window;
  return (
    <fieldset>
      {titled ? <legend>{t('desktop.startup.section')}</legend> : <legend className="visually-hidden">{t('desktop.startup.section')}</legend>}
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
