import { type ChangeEvent, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { clipboardImage, dataUrlToBlob, decodeQr } from '../qr/decode';
import { useAppStore } from '../store/context';
import { RefusalError } from './FormParts';
import type { WireRefusal } from '../../../shared/ipc/answer';

type Outcome = 'none' | 'noImage' | 'unreadable';

/**
 * Import from a QR code: a picture file, the clipboard's image, or the screen (desktop app, after
 * the user agrees). What the code holds goes to the host as an import request, which the user
 * then confirms like a panel's link; nothing is added from here.
 */
export function QrImport({ onOffered }: { onOffered(): void }) {
  const { t } = useTranslation();
  const offerImport = useAppStore((s) => s.offerImport);
  const captureScreen = useAppStore((s) => s.captureScreen);
  const file = useRef<HTMLInputElement>(null);
  const [message, setMessage] = useState<WireRefusal | null>(null);
  const [askingScreen, setAskingScreen] = useState(false);
  const [busy, setBusy] = useState(false);
  const desktop = typeof window !== 'undefined' && 'vpn' in window;

  const fail = (outcome: Outcome) => setMessage({ error: t(`desktop.qr.${outcome}`) });

  /** Reads the pictures in turn; the first code found is offered. */
  const readPictures = async (pictures: Blob[]) => {
    setBusy(true);
    setMessage(null);
    try {
      for (const picture of pictures) {
        const text = await decodeQr(picture);
        if (text === null) continue;
        const result = await offerImport(text);
        if (!result.ok) return setMessage(result);
        return onOffered();
      }
      fail('none');
    } catch {
      fail('unreadable');
    } finally {
      setBusy(false);
    }
  };

  const fromFile = (event: ChangeEvent<HTMLInputElement>) => {
    const chosen = event.target.files?.[0];
    event.target.value = '';
    if (chosen) void readPictures([chosen]);
  };

  const fromClipboard = async () => {
    try {
      const image = await clipboardImage();
      if (!image) return fail('noImage');
      await readPictures([image]);
    } catch {
      fail('noImage');
    }
  };

  const fromScreen = async () => {
    setAskingScreen(false);
    const result = await captureScreen();
    if (!result.ok) return setMessage(result);
    await readPictures(result.value.screens.map(dataUrlToBlob));
  };

  return (
    <div className="qr-import">
      <input ref={file} type="file" accept="image/*" className="visually-hidden" tabIndex={-1} aria-label={t('desktop.qr.fromImage')} onChange={fromFile} />
      <button type="button" className="button small" disabled={busy} onClick={() => file.current?.click()}>
        {t('desktop.qr.fromImage')}
      </button>
      <button type="button" className="button small" disabled={busy} onClick={() => void fromClipboard()}>
        {t('desktop.qr.fromClipboard')}
      </button>
      <button type="button" className="button small" disabled={busy || !desktop} title={desktop ? undefined : t('desktop.qr.screenUnavailable')} onClick={() => setAskingScreen(true)}>
        {t('desktop.qr.fromScreen')}
      </button>
      {askingScreen && (
        <div className="qr-consent" role="group" aria-labelledby="qr-consent-title">
          <p id="qr-consent-title">
            <strong>{t('desktop.qr.screenTitle')}</strong>
          </p>
          <p>{t('desktop.qr.screenConsent')}</p>
          <button type="button" className="button small" onClick={() => setAskingScreen(false)}>
            {t('common.cancel')}
          </button>
          <button type="button" className="button small primary" onClick={() => void fromScreen()}>
            {t('desktop.qr.screenAccept')}
          </button>
        </div>
      )}
      <RefusalError refusal={message} />
    </div>
  );
}
