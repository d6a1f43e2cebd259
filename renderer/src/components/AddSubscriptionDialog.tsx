import { type FormEvent, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { invokeSchemas } from '../../../shared/ipc/contract';
import { useAppStore } from '../store/context';
import { Modal } from './Modal';
import { QrImport } from './QrImport';
import { FormError, FormFooter, UserAgentField } from './FormParts';

type Source = 'url' | 'text';

/** Add a subscription from a link or from pasted text (share links, base64, JSON, YAML). */
export function AddSubscriptionDialog() {
  const { t } = useTranslation();
  const addSubscription = useAppStore((s) => s.addSubscription);
  const closeDialog = useAppStore((s) => s.closeDialog);
  const pushNotice = useAppStore((s) => s.pushNotice);
  const [source, setSource] = useState<Source>('url');
  const [url, setUrl] = useState('');
  const [text, setText] = useState('');
  const [name, setName] = useState('');
  const [userAgent, setUserAgent] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const first = useRef<HTMLInputElement>(null);

  const paste = async () => {
    try {
      const pasted = await navigator.clipboard.readText();
      if (/^https?:\/\/\S+$/i.test(pasted.trim())) {
        setSource('url');
        setUrl(pasted.trim());
      } else {
        setSource('text');
        setText(pasted);
      }
      setError(null);
    } catch {
      setError(t('add.pasteFailed'));
    }
  };

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const request = {
      ...(source === 'url' ? { url: url.trim() } : { text }),
      ...(name.trim() ? { name: name.trim() } : {}),
      ...(source === 'url' && userAgent.trim() ? { userAgent: userAgent.trim() } : {}),
    };
    if (source === 'url' && !/^https?:\/\//i.test(url.trim())) return setError(t('add.needUrl'));
    if (source === 'text' && text.trim() === '') return setError(t('add.needText'));
    const valid = invokeSchemas.addSubscription.safeParse(request);
    if (!valid.success) return setError(valid.error.issues[0]?.message ?? t('add.needUrl'));
    setBusy(true);
    setError(null);
    const result = await addSubscription(request);
    setBusy(false);
    if (!result.ok) return setError(result.error);
    pushNotice({ tone: 'info', what: 'addSubscription', text: t('add.added', { name: result.value.name, count: result.value.servers.length }) });
    closeDialog();
  };

  return (
    <Modal labelledBy="add-title" onCancel={closeDialog} initialFocus={first} className="add-dialog">
      <form onSubmit={submit}>
        <header className="modal-header">
          <h2 id="add-title">{t('add.title')}</h2>
        </header>
        <fieldset className="segmented-field">
          <legend className="visually-hidden">{t('add.source')}</legend>
          <label className={source === 'url' ? 'segment active' : 'segment'}>
            <input type="radio" name="source" value="url" checked={source === 'url'} onChange={() => setSource('url')} />
            {t('add.fromUrl')}
          </label>
          <label className={source === 'text' ? 'segment active' : 'segment'}>
            <input type="radio" name="source" value="text" checked={source === 'text'} onChange={() => setSource('text')} />
            {t('add.fromText')}
          </label>
        </fieldset>
        {source === 'url' ? (
          <label className="field">
            <span>{t('add.url')}</span>
            <input ref={first} type="url" dir="ltr" inputMode="url" placeholder={t('add.urlPlaceholder')} value={url} onChange={(event) => setUrl(event.target.value)} />
          </label>
        ) : (
          <label className="field">
            <span>{t('add.text')}</span>
            <textarea dir="ltr" rows={8} spellCheck={false} value={text} onChange={(event) => setText(event.target.value)} />
          </label>
        )}
        <button type="button" className="button small" onClick={() => void paste()}>
          {t('add.paste')}
        </button>
        <QrImport onOffered={closeDialog} />
        <label className="field">
          <span>{t('add.name')}</span>
          <input type="text" dir="auto" value={name} onChange={(event) => setName(event.target.value)} />
        </label>
        {source === 'url' && <UserAgentField value={userAgent} onChange={setUserAgent} />}
        <FormError>{error}</FormError>
        <FormFooter onCancel={closeDialog} submitLabel={t('add.add')} busyLabel={t('add.adding')} busy={busy} />
      </form>
    </Modal>
  );
}
