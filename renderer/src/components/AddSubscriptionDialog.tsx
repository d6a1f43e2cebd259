import { type FormEvent, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { WireRefusal } from '../../../shared/ipc/answer';
import { useAppStore } from '../store/context';
import { Modal } from './Modal';
import { QrImport } from './QrImport';
import { FormFooter, RefusalError, UserAgentField } from './FormParts';

/** Whether the box holds one address: only then is a User-Agent of any use. */
const ONE_ADDRESS = /^https?:\/\/\S+$/i;

/**
 * Add anything a user may have been given, in one box: a subscription address, share links, an
 * "add to app" link of any scheme the app registers, or a whole subscription body (base64, JSON,
 * YAML). The host reads it and it becomes an import request, confirmed like a clicked link or a QR
 * code (ImportPrompt); nothing is fetched or added from here.
 */
export function AddSubscriptionDialog() {
  const { t } = useTranslation();
  const offerImport = useAppStore((s) => s.offerImport);
  const closeDialog = useAppStore((s) => s.closeDialog);
  const [text, setText] = useState('');
  const [name, setName] = useState('');
  const [userAgent, setUserAgent] = useState('');
  const [refusal, setRefusal] = useState<WireRefusal | null>(null);
  const [busy, setBusy] = useState(false);
  const first = useRef<HTMLTextAreaElement>(null);
  const oneAddress = ONE_ADDRESS.test(text.trim());

  const paste = async () => {
    try {
      setText(await navigator.clipboard.readText());
      setRefusal(null);
    } catch {
      setRefusal({ error: t('add.pasteFailed') });
    }
  };

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (text.trim() === '') return setRefusal({ error: t('add.needText') });
    setBusy(true);
    setRefusal(null);
    const result = await offerImport(text, {
      source: 'paste',
      ...(name.trim() ? { name: name.trim() } : {}),
      ...(oneAddress && userAgent.trim() ? { userAgent: userAgent.trim() } : {}),
    });
    setBusy(false);
    if (!result.ok) return setRefusal(result);
    closeDialog();
  };

  return (
    <Modal labelledBy="add-title" onCancel={closeDialog} initialFocus={first} className="add-dialog">
      <form onSubmit={submit}>
        <header className="modal-header">
          <h2 id="add-title">{t('add.title')}</h2>
        </header>
        <label className="field">
          <span>{t('add.box')}</span>
          <textarea
            ref={first}
            dir="ltr"
            rows={6}
            spellCheck={false}
            autoComplete="off"
            placeholder={t('add.urlPlaceholder')}
            value={text}
            onChange={(event) => setText(event.target.value)}
          />
          <span className="hint">
            {t('add.boxHint')}
          </span>
        </label>
        <button type="button" className="button small" onClick={() => void paste()}>
          {t('add.paste')}
        </button>
        <QrImport onOffered={closeDialog} />
        <label className="field">
          <span>{t('add.name')}</span>
          <input type="text" dir="auto" value={name} onChange={(event) => setName(event.target.value)} />
        </label>
        {oneAddress && <UserAgentField value={userAgent} onChange={setUserAgent} />}
        <RefusalError refusal={refusal} />
        <FormFooter onCancel={closeDialog} submitLabel={t('add.next')} busyLabel={t('add.reading')} busy={busy} />
      </form>
    </Modal>
  );
}
