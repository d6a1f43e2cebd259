import { useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { qrSvg } from '../qr/encode';
import { useAppStore } from '../store/context';
import type { ServerId } from '../../../shared/domain/server';
import type { ShareTarget } from '../store/dialogs';
import { FlaggedName } from './FlaggedName';
import { Modal } from './Modal';
import { RefusalError } from './FormParts';
import type { WireRefusal } from '../../../shared/ipc/answer';

/**
 * A server as a QR code and share link, or a subscription's address. The link carries the
 * account's credentials: the page does not hold it (the host sends the UI no credentials) until
 * the user chooses to show it, and then only in this dialog.
 */
export function ShareDialog({ target, returnTo }: { target: ShareTarget; returnTo?: { kind: 'server-details'; serverId: ServerId } }) {
  const { t } = useTranslation();
  const close = useAppStore((s) => s.closeDialog);
  const openDialog = useAppStore((s) => s.openDialog);
  // Opened from a server's details, it goes back to them: the person was not done there.
  const closeDialog = () => (returnTo ? openDialog(returnTo) : close());
  const shareLink = useAppStore((s) => s.shareLink);
  const pushNotice = useAppStore((s) => s.pushNotice);
  const name = useAppStore((s) =>
    'serverId' in target
      ? (s.subscriptions.flatMap((sub) => sub.servers).find((server) => server.id === target.serverId)?.name ?? '')
      : (s.subscriptions.find((sub) => sub.id === target.subscriptionId)?.name ?? ''),
  );
  const [shown, setShown] = useState<{ link: string | null; svg: string | null } | null>(null);
  const [error, setError] = useState<WireRefusal | null>(null);
  const reveal = useRef<HTMLButtonElement>(null);

  const show = async () => {
    setError(null);
    const result = await shareLink(target);
    if (!result.ok) return setError(result);
    const link = result.value.link;
    setShown({ link, svg: link ? await qrSvg(link) : null });
  };

  const copy = async () => {
    if (!shown?.link) return;
    try {
      await navigator.clipboard.writeText(shown.link);
      pushNotice({ tone: 'info', what: 'copy', key: 'desktop.share.copied' });
    } catch {
      pushNotice({ tone: 'error', what: 'copy', key: 'notice.copyUnavailable' });
    }
  };

  return (
    <Modal labelledBy="share-title" onCancel={closeDialog} initialFocus={reveal} className="share-dialog">
      <header className="modal-header">
        <h2 id="share-title">
          {t('desktop.share.title', { name: '' })}
          <bdi>
            <FlaggedName name={name} />
          </bdi>
        </h2>
      </header>
      <p className="share-warning">{'serverId' in target ? t('desktop.share.serverWarning') : t('desktop.share.subscriptionWarning')}</p>
      {shown === null ? (
        <>
          <p className="muted">{t('desktop.share.hidden')}</p>
          <button ref={reveal} type="button" className="button primary" onClick={() => void show()}>
            {t('desktop.share.reveal')}
          </button>
        </>
      ) : shown.link === null ? (
        <p>{t('desktop.share.noAddress')}</p>
      ) : (
        <div className="share-shown">
          {shown.svg ? (
            <div className="share-qr" role="img" aria-label={t('desktop.share.qrLabel')} dangerouslySetInnerHTML={{ __html: shown.svg }} />
          ) : (
            <p>{t('desktop.share.tooLong')}</p>
          )}
          <p>
            <bdi dir="ltr" className="share-link">
              {shown.link}
            </bdi>
          </p>
          <button type="button" className="button" onClick={() => void copy()}>
            {t('desktop.share.copy')}
          </button>
        </div>
      )}
      <RefusalError refusal={error} />
      <footer className="modal-footer">
        <button type="button" className="button" onClick={closeDialog}>
          {t('common.close')}
        </button>
      </footer>
    </Modal>
  );
}
