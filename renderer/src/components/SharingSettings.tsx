import { useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { Settings } from '../../../shared/settings';
import type { SharingCredentials, SharingView } from '../../../shared/sharing';
import { qrSvg } from '../qr/encode';
import { useAppStore } from '../store/context';
import { TechnicalText } from './TechnicalText';

/** The form's view of household sharing: the block is saved whole. */
export type SharingDraft = Settings['sharing'];

/** How often the open page asks for the refused-login count and where the proxies listen. */
const REFRESH_MS = 2000;

const hostOf = (address: string) => (address.includes(':') ? `[${address}]` : address);

/**
 * What a phone scans: the SOCKS5 proxy as a share link (`socks5://user:pass@host:port#name`, the
 * form this app writes for SOCKS servers and phone clients import). Letters and digits only in the
 * credentials, so nothing needs escaping.
 */
export function householdLink(address: string, port: number, credentials: SharingCredentials, name: string): string {
  return `socks5://${credentials.username}:${credentials.password}@${hostOf(address)}:${port}#${encodeURIComponent(name)}`;
}

/**
 * Settings → Sharing: the local proxies offered to the household's other devices on one private
 * address of this machine, behind a username and password. The credentials are not in the page
 * until the user chooses to see them; the refused logins are shown as they come.
 */
export function SharingSettings({ draft, onChange, error }: { draft: SharingDraft; onChange: (next: SharingDraft) => void; error?: string }) {
  const { t, i18n } = useTranslation();
  const settings = useAppStore((s) => s.settings);
  const getSharing = useAppStore((s) => s.getSharing);
  const sharingCredentials = useAppStore((s) => s.sharingCredentials);
  const [view, setView] = useState<SharingView | null>(null);
  const [shown, setShown] = useState<{ credentials: SharingCredentials; svg: string | null } | null>(null);
  const [failure, setFailure] = useState<string | null>(null);
  // Show and Hide take each other's place: the focus goes to the one that appears, or it would
  // fall out of the dialog (and Escape with it) when the button pressed is gone.
  const showButton = useRef<HTMLButtonElement>(null);
  const hideButton = useRef<HTMLButtonElement>(null);
  const toggled = useRef(false);
  useEffect(() => {
    if (toggled.current) (shown ? hideButton : showButton).current?.focus();
  }, [shown]);

  useEffect(() => {
    let live = true;
    const refresh = async () => {
      const result = await getSharing();
      if (live && result.ok) setView(result.value);
    };
    void refresh();
    const timer = setInterval(() => void refresh(), REFRESH_MS);
    return () => {
      live = false;
      clearInterval(timer);
    };
  }, [getSharing]);

  const address = draft.address;
  const known = view?.addresses.some((a) => a.address === address) ?? false;

  const show = async () => {
    setFailure(null);
    const result = await sharingCredentials();
    if (!result.ok) return setFailure(result.error);
    const link = address ? householdLink(address, settings.socksPort, result.value, t('sharing.qrName')) : null;
    toggled.current = true;
    setShown({ credentials: result.value, svg: link ? await qrSvg(link) : null });
  };

  const time = view?.lastFailedAt ? new Intl.DateTimeFormat(i18n.language, { dateStyle: 'short', timeStyle: 'medium' }).format(view.lastFailedAt) : null;

  return (
    <fieldset className="sharing-settings">
      <legend>{t('sharing.section')}</legend>
      <p className="share-warning" role="note">
        {t('sharing.warning')}
      </p>
      <label className="check-field">
        <input type="checkbox" checked={draft.enabled} onChange={(e) => onChange({ ...draft, enabled: e.target.checked })} />
        <span>{t('sharing.enable')}</span>
        <span className="hint">{t('sharing.enableHint')}</span>
      </label>
      <label className="field">
        <span>{t('sharing.address')}</span>
        <select value={address} aria-invalid={error !== undefined} onChange={(e) => onChange({ ...draft, address: e.target.value })} dir="ltr">
          <option value="">{t('sharing.pickAddress')}</option>
          {view?.addresses.map((a) => (
            <option key={a.address} value={a.address}>
              {`${a.address} (${a.interface})`}
            </option>
          ))}
          {address !== '' && !known && <option value={address}>{t('sharing.addressGone', { address })}</option>}
          {/* Shown, never offered: the address a person may look for, with why it cannot be chosen. */}
          {view?.notPrivate.map((a) => (
            <option key={`not-${a.address}`} value={`not-${a.address}`} disabled>
              {t('sharing.notPrivateAddress', { address: a.address, interface: a.interface })}
            </option>
          ))}
        </select>
        <span className="hint">
          <TechnicalText text={t('sharing.addressHint')} />
        </span>
        {view && view.addresses.length === 0 && <span className="hint">{t('sharing.noAddresses')}</span>}
        {error && <span className="field-error">{/pick the LAN address/i.test(error) ? t('sharing.needAddress') : /not a private LAN address|not an IP address/.test(error) ? t('sharing.notPrivate') : error}</span>}
      </label>
      <p className="sharing-status" data-listening={view?.listening ? 'yes' : 'no'}>
        {view?.listening ? (
          <>
            {t('sharing.listening')}{' '}
            <bdi dir="ltr">{view.listening.httpProxy}</bdi> · <bdi dir="ltr">{view.listening.socksProxy}</bdi>
          </>
        ) : settings.sharing.enabled ? (
          t('sharing.whileConnected')
        ) : (
          t('sharing.off')
        )}
      </p>
      <p className="sharing-failures" data-count={view?.failedLogins ?? 0}>
        {t('sharing.failedLogins', { count: view?.failedLogins ?? 0 })}
        {time && <> {t('sharing.lastFailed', { time })}</>}
        <span className="hint">{t('sharing.failedLoginsHint')}</span>
      </p>
      {shown === null ? (
        <>
          <p className="muted">{t('sharing.hidden')}</p>
          <button ref={showButton} type="button" className="button" onClick={() => void show()}>
            {t('sharing.reveal')}
          </button>
        </>
      ) : (
        <div className="share-shown sharing-credentials">
          <dl>
            <dt>{t('sharing.username')}</dt>
            <dd>
              <bdi dir="ltr">{shown.credentials.username}</bdi>
            </dd>
            <dt>{t('sharing.password')}</dt>
            <dd>
              <bdi dir="ltr">{shown.credentials.password}</bdi>
            </dd>
            {address && (
              <>
                <dt>{t('sharing.httpProxy')}</dt>
                <dd>
                  <bdi dir="ltr">{`${hostOf(address)}:${settings.httpPort}`}</bdi>
                </dd>
                <dt>{t('sharing.socksProxy')}</dt>
                <dd>
                  <bdi dir="ltr">{`${hostOf(address)}:${settings.socksPort}`}</bdi>
                </dd>
              </>
            )}
          </dl>
          {shown.svg ? (
            <div className="share-qr" role="img" aria-label={t('sharing.qrLabel')} dangerouslySetInnerHTML={{ __html: shown.svg }} />
          ) : (
            <p>{t('sharing.qrNeedsAddress')}</p>
          )}
          <button ref={hideButton} type="button" className="button" onClick={() => setShown(null)}>
            {t('sharing.hide')}
          </button>
        </div>
      )}
      {failure && (
        <p className="field-error" role="alert">
          {failure}
        </p>
      )}
    </fieldset>
  );
}
