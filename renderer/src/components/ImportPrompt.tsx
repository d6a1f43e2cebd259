import { useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { ImportRequest } from '../../../shared/domain/import-request';
import { useAppStore } from '../store/context';
import { FlaggedName } from './FlaggedName';
import { Modal } from './Modal';
import type { WireRefusal } from '../../../shared/ipc/answer';
import { validationText } from '../i18n/validation';
import { EngineDetails } from './EngineDetails';
import { RefusalError } from './FormParts';

/**
 * Asks before anything from outside is added: a panel's "add to app" link, a QR code. It shows
 * where the request came from, the address it would fetch (its host first, so a look-alike stands
 * out) and the name it proposes; only "Add" lets the host fetch or add anything. What the import
 * box took comes here too, so a pasted link is asked about as a clicked one is.
 */
export function ImportPrompt() {
  const pending = useAppStore((s) => s.importRequests[0]);
  return pending ? <ImportRequestDialog key={pending.id} request={pending} /> : null;
}

function ImportRequestDialog({ request }: { request: ImportRequest }) {
  const { t } = useTranslation();
  const answer = useAppStore((s) => s.answerImport);
  const pushNotice = useAppStore((s) => s.pushNotice);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<WireRefusal | null>(null);
  const decline = useRef<HTMLButtonElement>(null);
  const { target } = request;
  const source =
    request.source === 'qr' ? t('desktop.imports.fromQr') : request.source === 'paste' ? t('desktop.imports.fromPaste') : t('desktop.imports.fromLink', { scheme: `${request.source}://` });

  const respond = async (accept: boolean, keep = false) => {
    setBusy(true);
    setError(null);
    const result = await answer(request.id, accept, keep);
    setBusy(false);
    // A failed Add comes back on the request itself (its failure, said below in the user's words).
    if (!result.ok) return setError(result.code === 'subscription-not-added' ? null : result);
    const added = result.value;
    if (!added) return;
    if (keep && added.servers.length === 0) pushNotice({ tone: 'info', what: 'import', text: t('desktop.imports.kept', { name: added.name }) });
    else pushNotice({ tone: 'info', what: 'import', text: t('add.added', { name: added.name, count: added.servers.length }) });
  };

  return (
    <Modal labelledBy="import-title" describedBy="import-what" onCancel={() => void respond(false)} initialFocus={decline} className="import-dialog">
      <header className="modal-header">
        <h2 id="import-title">{target.kind === 'unreadable' ? t('desktop.imports.unreadableTitle') : t('desktop.imports.title')}</h2>
        <p className="muted">{source}</p>
      </header>
      <div id="import-what" className="import-what">
        {target.kind === 'subscription' && (
          <>
            <p>{t('desktop.imports.subscriptionBody')}</p>
            <dl className="import-facts">
              <dt>{t('desktop.imports.host')}</dt>
              <dd>
                <bdi dir="ltr" className="import-host">
                  {hostOf(target.url)}
                </bdi>
              </dd>
              <dt>{t('desktop.imports.address')}</dt>
              <dd>
                <bdi dir="ltr" className="import-url">
                  {target.url}
                </bdi>
              </dd>
            </dl>
          </>
        )}
        {target.kind === 'links' && (
          <>
            <p>{t('desktop.imports.linksBody', { count: target.text.split('\n').length })}</p>
            <Excerpt text={target.excerpt} />
          </>
        )}
        {target.kind === 'body' && (
          <>
            <p>{t('desktop.imports.bodyBody', { count: target.servers, format: target.format })}</p>
            <Excerpt text={target.excerpt} />
          </>
        )}
        {target.kind === 'unreadable' && (
          <>
            <p role="alert">{t('desktop.imports.unreadableBody', { reason: target.problem ? validationText(t, target.problem) : target.reason })}</p>
            <Excerpt text={target.excerpt} />
          </>
        )}
        {target.kind !== 'unreadable' && (
          <dl className="import-facts">
            <dt>{t('desktop.imports.name')}</dt>
            <dd>{request.name ? <FlaggedName name={request.name} /> : <span className="muted">{t('desktop.imports.noName')}</span>}</dd>
          </dl>
        )}
        {target.kind !== 'unreadable' && <p className="muted">{t('desktop.imports.trust')}</p>}
      </div>
      {request.failure && (
        <>
          <p className="form-error" role="alert">
            {t('desktop.imports.failed', { why: t(`subscription.errorKinds.${request.failure.kind}`) })}
          </p>
          <EngineDetails text={request.failure.detail} className="form-error-details" />
        </>
      )}
      <RefusalError refusal={error} />
      <footer className="modal-footer">
        {target.kind === 'unreadable' ? (
          <button ref={decline} type="button" className="button primary" onClick={() => void respond(false)}>
            {t('common.close')}
          </button>
        ) : (
          <>
            <button ref={decline} type="button" className="button" disabled={busy} onClick={() => void respond(false)}>
              {t('desktop.imports.decline')}
            </button>
            {request.failure && target.kind === 'subscription' && (
              <button type="button" className="button" disabled={busy} onClick={() => void respond(true, true)}>
                {t('desktop.imports.keep')}
              </button>
            )}
            <button type="button" className="button primary" disabled={busy} onClick={() => void respond(true)}>
              {busy ? t('add.adding') : request.failure ? t('desktop.imports.retry') : t('desktop.imports.accept')}
            </button>
          </>
        )}
      </footer>
    </Modal>
  );
}

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
}

/** What the link or picture holds, as it came: left to right, whatever the page's direction. */
function Excerpt({ text }: { text: string }) {
  return (
    <p>
      <bdi dir="ltr" className="import-url">
        {text}
      </bdi>
    </p>
  );
}
