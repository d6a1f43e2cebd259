import { useTranslation } from 'react-i18next';
import type { SubscriptionId } from '../../../shared/domain/server';
import { usePressActions } from '../hooks/useLongPress';
import { useAppStore } from '../store/context';

/**
 * The Auto toggle of one subscription. Click / Enter / Space toggles it (only one subscription has
 * Auto at a time: the host turns the others off). Long-press, right-click, Shift+F10 or the
 * context-menu key open the dialog of servers Auto will not use.
 */
export function AutoButton({ subscriptionId, name }: { subscriptionId: SubscriptionId; name: string }) {
  const { t } = useTranslation();
  const on = useAppStore((s) => s.auto.subscriptionId === subscriptionId);
  const toggleAuto = useAppStore((s) => s.toggleAuto);
  const openDialog = useAppStore((s) => s.openDialog);
  const handlers = usePressActions(
    () => void toggleAuto(subscriptionId),
    () => openDialog({ kind: 'exclude-servers', subscriptionId }),
  );
  const hintId = `auto-hint-${subscriptionId}`;
  return (
    <>
      <button
        type="button"
        className={on ? 'auto-toggle on' : 'auto-toggle'}
        aria-pressed={on}
        aria-label={t('subscription.autoName', { name })}
        aria-describedby={hintId}
        aria-keyshortcuts="Shift+F10 ContextMenu"
        title={t('subscription.autoHint')}
        {...handlers}
      >
        <span className="auto-dot" aria-hidden="true" />
        {t('subscription.auto')}
      </button>
      <span id={hintId} className="visually-hidden">
        {t('subscription.autoHint')}
      </span>
    </>
  );
}
