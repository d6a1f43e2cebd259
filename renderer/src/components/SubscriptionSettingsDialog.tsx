import { type FormEvent, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { SubscriptionId } from '../../../shared/domain/server';
import { invokeSchemas } from '../../../shared/ipc/contract';
import { isolate } from '../format/format';
import { useAppStore } from '../store/context';
import { selectSubscription } from '../store/servers.selectors';
import { Modal } from './Modal';
import { FormFooter, RefusalError, UserAgentField } from './FormParts';
import type { WireRefusal } from '../../../shared/ipc/answer';

/**
 * A subscription's own settings: the User-Agent it is fetched with (some panels choose the format
 * by it). Saving updates the subscription with it at once.
 */
export function SubscriptionSettingsDialog({ subscriptionId }: { subscriptionId: SubscriptionId }) {
  const { t } = useTranslation();
  const subscription = useAppStore((s) => selectSubscription(s, subscriptionId));
  const setUserAgent = useAppStore((s) => s.setSubscriptionUserAgent);
  const closeDialog = useAppStore((s) => s.closeDialog);
  const pushNotice = useAppStore((s) => s.pushNotice);
  const [userAgent, setUserAgentText] = useState(subscription?.userAgent ?? '');
  const [error, setError] = useState<WireRefusal | null>(null);
  const [busy, setBusy] = useState(false);
  const first = useRef<HTMLInputElement>(null);
  if (!subscription) return null;
  const name = isolate(subscription.name);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const wanted = userAgent.trim() === '' ? null : userAgent;
    // Checked here too, so the reason is said in the user's language before anything is sent.
    if (!invokeSchemas.editSubscription.safeParse({ id: subscriptionId, userAgent: wanted }).success) return setError({ error: t('desktop.userAgent.invalid') });
    setBusy(true);
    setError(null);
    const result = await setUserAgent(subscriptionId, wanted);
    setBusy(false);
    if (!result.ok) return setError(result);
    pushNotice({ tone: 'info', what: 'updateSubscription', text: t('desktop.subscriptionSettings.saved', { name }) });
    closeDialog();
  };

  return (
    <Modal labelledBy="subscription-settings-title" onCancel={closeDialog} initialFocus={first} className="subscription-settings-dialog">
      <form onSubmit={submit}>
        <header className="modal-header">
          <h2 id="subscription-settings-title">{t('desktop.subscriptionSettings.title', { name })}</h2>
        </header>
        <UserAgentField inputRef={first} value={userAgent} invalid={error !== null} onChange={setUserAgentText} />
        <RefusalError refusal={error} />
        <FormFooter onCancel={closeDialog} submitLabel={t('common.save')} busyLabel={t('common.saving')} busy={busy} />
      </form>
    </Modal>
  );
}
