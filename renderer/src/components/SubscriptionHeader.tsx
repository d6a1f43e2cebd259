import { type DragEvent, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useShallow } from 'zustand/react/shallow';
import type { SubscriptionId } from '../../../shared/domain/server';
import { useFormat } from '../hooks/useFormat';
import { useNow } from '../hooks/useNow';
import { useAppStore } from '../store/context';
import { selectSubscription, usageOf } from '../store/servers.selectors';
import { AutoButton } from './AutoButton';
import { EngineDetails } from './EngineDetails';
import { ChevronIcon, DownIcon, ExcludedIcon, GearIcon, GripIcon, TrashIcon, UpIcon, UpdateIcon } from './icons';
import { FlaggedName } from './FlaggedName';

const DRAG_TYPE = 'application/x-steadfast-subscription';

/** One subscription's header in the server list: Auto, usage, errors and its own actions. */
export function SubscriptionHeader({ subscriptionId, matched }: { subscriptionId: SubscriptionId; matched: number }) {
  const { t } = useTranslation();
  const format = useFormat();
  const now = useNow(10_000);
  const subscription = useAppStore((s) => selectSubscription(s, subscriptionId));
  const { position, count, collapsed, excludedCount } = useAppStore(
    useShallow((s) => ({
      position: s.subscriptions.findIndex((x) => x.id === subscriptionId),
      count: s.subscriptions.length,
      collapsed: s.collapsed[subscriptionId] ?? false,
      excludedCount: s.auto.excluded[subscriptionId]?.length ?? 0,
    })),
  );
  const actions = useAppStore(
    useShallow((s) => ({
      update: s.updateSubscription,
      move: s.moveSubscription,
      moveTo: s.moveSubscriptionTo,
      toggleCollapsed: s.toggleCollapsed,
      openDialog: s.openDialog,
    })),
  );
  const [updating, setUpdating] = useState(false);
  const [dropTarget, setDropTarget] = useState(false);
  if (!subscription) return null;

  const name = subscription.name;
  const total = subscription.servers.length;
  const usage = usageOf(subscription);
  const headingId = `sub-heading-${subscription.id}`;

  const onDragStart = (event: DragEvent) => {
    event.dataTransfer.setData(DRAG_TYPE, subscription.id);
    event.dataTransfer.effectAllowed = 'move';
  };
  const onDragOver = (event: DragEvent) => {
    if (!event.dataTransfer.types.includes(DRAG_TYPE)) return;
    event.preventDefault();
    event.dataTransfer.dropEffect = 'move';
    setDropTarget(true);
  };
  const onDrop = (event: DragEvent) => {
    setDropTarget(false);
    const dragged = event.dataTransfer.getData(DRAG_TYPE);
    if (!dragged) return;
    event.preventDefault();
    void actions.moveTo(dragged, subscription.id);
  };

  return (
    <section
      className={dropTarget ? 'sub-header drop-target' : 'sub-header'}
      aria-labelledby={headingId}
      onDragOver={onDragOver}
      onDragLeave={() => setDropTarget(false)}
      onDrop={onDrop}
    >
      <div className="sub-line">
        <span className="drag-handle" draggable onDragStart={onDragStart} title={t('subscription.drag', { name })} aria-hidden="true">
          <GripIcon />
        </span>
        <button
          type="button"
          className="icon-button ghost"
          aria-expanded={!collapsed}
          aria-label={t(collapsed ? 'subscription.expand' : 'subscription.collapse', { name })}
          onClick={() => actions.toggleCollapsed(subscription.id)}
        >
          <ChevronIcon open={!collapsed} />
        </button>
        <h2 id={headingId} className="sub-name">
          <bdi>
            <FlaggedName name={name} />
          </bdi>
        </h2>
        <span className="sub-count">
          {matched === total ? t('subscription.servers', { count: total }) : t('subscription.shown', { shown: format.number(matched), total: format.number(total) })}
        </span>
        <span className="spacer" />
        <AutoButton subscriptionId={subscription.id} name={name} />
        {excludedCount > 0 && (
          <button
            type="button"
            className="chip-button"
            title={t('subscription.editExcluded')}
            onClick={() => actions.openDialog({ kind: 'exclude-servers', subscriptionId: subscription.id })}
          >
            <ExcludedIcon /> {t('subscription.excludedCount', { count: excludedCount })}
          </button>
        )}
        <button
          type="button"
          className="icon-button"
          aria-label={t('subscription.updateName', { name })}
          title={t('subscription.update')}
          disabled={updating || !subscription.url}
          onClick={async () => {
            setUpdating(true);
            await actions.update(subscription.id);
            setUpdating(false);
          }}
        >
          <UpdateIcon />
        </button>
        {subscription.url && (
          <button
            type="button"
            className="icon-button"
            aria-label={t('desktop.subscriptionSettings.title', { name })}
            title={t('desktop.subscriptionSettings.open')}
            onClick={() => actions.openDialog({ kind: 'subscription-settings', subscriptionId: subscription.id })}
          >
            <GearIcon />
          </button>
        )}
        <button
          type="button"
          className="icon-button"
          aria-label={t('subscription.moveUp', { name })}
          disabled={position <= 0}
          onClick={() => void actions.move(subscription.id, -1)}
        >
          <UpIcon />
        </button>
        <button
          type="button"
          className="icon-button"
          aria-label={t('subscription.moveDown', { name })}
          disabled={position === -1 || position >= count - 1}
          onClick={() => void actions.move(subscription.id, 1)}
        >
          <DownIcon />
        </button>
        <button
          type="button"
          className="chip-button"
          aria-label={t('desktop.share.title', { name })}
          onClick={() => actions.openDialog({ kind: 'share', target: { subscriptionId: subscription.id } })}
        >
          {t('desktop.share.open')}
        </button>
        <button
          type="button"
          className="icon-button danger"
          aria-label={t('subscription.remove', { name })}
          onClick={() => actions.openDialog({ kind: 'confirm-remove', subscriptionId: subscription.id })}
        >
          <TrashIcon />
        </button>
      </div>
      <div className="sub-meta">
        {usage && (
          <span className="usage">
            {usage.fraction !== null && (
              <span
                className="usage-bar"
                role="meter"
                aria-label={t('subscription.usageLabel')}
                aria-valuemin={0}
                aria-valuemax={100}
                aria-valuenow={Math.round(usage.fraction * 100)}
                aria-valuetext={format.percent(usage.fraction)}
              >
                <span className={usage.fraction > 0.9 ? 'usage-fill high' : 'usage-fill'} style={{ inlineSize: `${usage.fraction * 100}%` }} />
              </span>
            )}
            {usage.total !== null
              ? t('subscription.usage', { used: format.bytes(usage.used), total: format.bytes(usage.total) })
              : t('subscription.usageUnlimited', { used: format.bytes(usage.used) })}
          </span>
        )}
        {usage?.expire && (
          <span className={usage.expire < now ? 'expiry expired' : 'expiry'}>
            {t(usage.expire < now ? 'subscription.expired' : 'subscription.expires', { date: format.date(usage.expire) })}
          </span>
        )}
        <span className="updated">
          {!subscription.url
            ? t('subscription.pasted')
            : subscription.updatedAt
              ? t('subscription.updated', { time: format.relative(subscription.updatedAt, now) })
              : t('subscription.neverUpdated')}
        </span>
      </div>
      {subscription.announce && (
        <p className="sub-announce" role="note" dir="auto">
          {t('subscription.announce', { text: subscription.announce })}
        </p>
      )}
      {subscription.lastError && !subscription.pendingEmpty && (
        <div className="sub-error" role="note">
          {subscription.lastErrorKind ? (
            <>
              <p>{t('subscription.lastError', { error: t(`subscription.errorKinds.${subscription.lastErrorKind}`) })}</p>
              <EngineDetails text={subscription.lastError} className="sub-error-details" />
            </>
          ) : (
            <p>{t('subscription.lastError', { error: subscription.lastError })}</p>
          )}
        </div>
      )}
      {subscription.pendingEmpty && (
        <div className="sub-warning" role="note">
          <span>{t('subscription.pendingEmpty')}</span>
          <button type="button" className="button small" onClick={() => actions.openDialog({ kind: 'confirm-empty', subscriptionId: subscription.id })}>
            {t('subscription.replaceEmpty')}
          </button>
        </div>
      )}
      {subscription.rejected.length > 0 && (
        <details className="rejected">
          <summary>{t('subscription.rejected', { count: subscription.rejected.length })}</summary>
          <ul>
            {subscription.rejected.map((entry, index) => (
              <li key={`${entry.line}:${index}`}>
                <span>{t('subscription.rejectedLine', { line: format.number(entry.line), reason: entry.reason })}</span>
                {entry.excerpt && (
                  <code dir="ltr" className="excerpt">
                    {entry.excerpt}
                  </code>
                )}
              </li>
            ))}
          </ul>
        </details>
      )}
    </section>
  );
}
