import { useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { SubscriptionId } from '../../../shared/domain/server';
import { isolate } from '../format/format';
import { useAppStore } from '../store/context';
import { selectSubscription } from '../store/servers.selectors';
import { Modal } from './Modal';

interface ConfirmProps {
  title: string;
  body: string;
  confirmLabel: string;
  onConfirm(): Promise<{ ok: boolean }>;
}

/** A yes/no question; the safe answer (Cancel) has the focus. */
function Confirm({ title, body, confirmLabel, onConfirm }: ConfirmProps) {
  const { t } = useTranslation();
  const closeDialog = useAppStore((s) => s.closeDialog);
  const [busy, setBusy] = useState(false);
  const cancel = useRef<HTMLButtonElement>(null);
  return (
    <Modal labelledBy="confirm-title" describedBy="confirm-body" onCancel={closeDialog} initialFocus={cancel} className="confirm-dialog">
      <h2 id="confirm-title">{title}</h2>
      <p id="confirm-body">{body}</p>
      <footer className="modal-footer">
        <button ref={cancel} type="button" className="button" onClick={closeDialog}>
          {t('common.cancel')}
        </button>
        <button
          type="button"
          className="button danger"
          disabled={busy}
          onClick={async () => {
            setBusy(true);
            const result = await onConfirm();
            setBusy(false);
            if (result.ok) closeDialog();
          }}
        >
          {confirmLabel}
        </button>
      </footer>
    </Modal>
  );
}

export function ConfirmRemoveDialog({ subscriptionId }: { subscriptionId: SubscriptionId }) {
  const { t } = useTranslation();
  const name = useAppStore((s) => selectSubscription(s, subscriptionId)?.name ?? '');
  const removeSubscription = useAppStore((s) => s.removeSubscription);
  return (
    <Confirm
      title={t('remove.title', { name: isolate(name) })}
      body={t('remove.body')}
      confirmLabel={t('common.remove')}
      onConfirm={() => removeSubscription(subscriptionId)}
    />
  );
}

export function ConfirmEmptyDialog({ subscriptionId }: { subscriptionId: SubscriptionId }) {
  const { t } = useTranslation();
  const name = useAppStore((s) => selectSubscription(s, subscriptionId)?.name ?? '');
  const confirmEmpty = useAppStore((s) => s.confirmEmptySubscription);
  return (
    <Confirm
      title={t('empty.title', { name: isolate(name) })}
      body={t('empty.body')}
      confirmLabel={t('common.replace')}
      onConfirm={() => confirmEmpty(subscriptionId)}
    />
  );
}
