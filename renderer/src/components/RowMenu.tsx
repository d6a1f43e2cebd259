import { type KeyboardEvent, useEffect, useLayoutEffect, useRef, useState } from 'react';
import { createPortal } from 'react-dom';
import { useTranslation } from 'react-i18next';
import { useFormat } from '../hooks/useFormat';
import type { ServerId, SubscriptionId } from '../../../shared/domain/server';
import { selectExcludedIds } from '../store/auto';
import { useAppStore, useAppStoreApi } from '../store/context';
import { selectSelectedIds } from '../store/selection';
import { selectServer } from '../store/servers.selectors';
import { useShallow } from 'zustand/react/shallow';
import { excludedAfter, type RowMenuAction, rowMenuItems } from '../../../shared/domain/server-actions';
import { menuFocusAfter } from './row-menu';

export interface RowMenuRequest {
  serverId: ServerId;
  subscriptionId: SubscriptionId;
  /** Where it opens (the pointer, or the row's corner when opened from the keyboard). */
  x: number;
  y: number;
}

const ACTION_KEYS: Record<RowMenuAction, string> = {
  connect: 'rowMenu.connect',
  test: 'rowMenu.test',
  'speed-test': 'rowMenu.speedTest',
  exclude: 'rowMenu.exclude',
  include: 'rowMenu.include',
  share: 'rowMenu.share',
  details: 'rowMenu.details',
};

/**
 * A server row's own menu (right-click, long-press, the menu key or Shift+F10): the ARIA menu
 * pattern, focus on its first item, arrow keys, Home / End, Escape or a click outside closes it and
 * gives the focus back to the row. Exclude and Include save through the same call as the exclude
 * dialog, so both land in the same settings. Speed test measures this server, or every selected
 * server when the row is one of several selected (the menu says how many).
 */
export function RowMenu({ request, onClose }: { request: RowMenuRequest; onClose(): void }) {
  const { t } = useTranslation();
  const format = useFormat();
  const store = useAppStoreApi();
  const { serverId, subscriptionId } = request;
  const server = useAppStore((s) => selectServer(s, serverId));
  const excluded = useAppStore((s) => selectExcludedIds(s, subscriptionId));
  const serverIds = useAppStore((s) => s.subscriptions.find((sub) => sub.id === subscriptionId)?.servers.map((x) => x.id).join('\n') ?? '');
  const isCurrent = useAppStore((s) => s.connection.serverId === serverId && s.connection.state !== 'disconnected' && s.connection.state !== 'failed');
  const testing = useAppStore((s) => s.statuses[serverId]?.testing ?? false);
  const speedTestRunning = useAppStore((s) => s.speedTest.running);
  const selected = useAppStore(useShallow(selectSelectedIds));
  // The row is one of several selected: the speed test is for all of them.
  const forSelection = selected.length > 1 && selected.includes(serverId);
  const menu = useRef<HTMLDivElement>(null);
  const [position, setPosition] = useState({ left: request.x, top: request.y });

  const ids = serverIds ? serverIds.split('\n') : [];
  const isExcluded = excluded.includes(serverId);
  const available = ids.filter((id) => !excluded.includes(id));
  const items = rowMenuItems({ isCurrent, isExcluded, isLastAvailable: available.length === 1 && available[0] === serverId, testing, speedTestRunning });

  // Kept inside the window: a menu opened near the right or bottom edge opens towards the middle.
  useLayoutEffect(() => {
    const box = menu.current?.getBoundingClientRect();
    if (!box) return;
    setPosition({
      left: Math.max(4, Math.min(request.x, window.innerWidth - box.width - 4)),
      top: Math.max(4, Math.min(request.y, window.innerHeight - box.height - 4)),
    });
  }, [request.x, request.y]);

  useEffect(() => {
    const previous = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    menu.current?.querySelector<HTMLElement>('[role="menuitem"]')?.focus();
    const outside = (event: PointerEvent) => {
      if (!menu.current?.contains(event.target as Node)) onClose();
    };
    document.addEventListener('pointerdown', outside, true);
    return () => {
      document.removeEventListener('pointerdown', outside, true);
      if (previous?.isConnected) previous.focus();
    };
    // Focus moves in once, when the menu opens.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);

  const run = (action: RowMenuAction) => {
    const state = store.getState();
    onClose();
    switch (action) {
      case 'connect':
        void state.connect(serverId);
        break;
      case 'test':
        void state.testServer(serverId);
        break;
      case 'speed-test':
        void state.startSpeedTest({ kind: 'servers', serverIds: forSelection ? selected : [serverId] });
        break;
      case 'exclude':
      case 'include':
        void state.setExcluded(subscriptionId, excludedAfter(excluded, serverId, action));
        break;
      case 'share':
        state.openDialog({ kind: 'share', target: { serverId } });
        break;
      case 'details':
        state.openDialog({ kind: 'server-details', serverId });
        break;
    }
  };

  const onKeyDown = (event: KeyboardEvent<HTMLDivElement>) => {
    const entries = [...(menu.current?.querySelectorAll<HTMLElement>('[role="menuitem"]') ?? [])];
    const at = entries.indexOf(document.activeElement as HTMLElement);
    if (event.key === 'Escape' || event.key === 'Tab') {
      event.preventDefault();
      onClose();
      return;
    }
    const next = menuFocusAfter(event.key, Math.max(0, at), entries.length);
    if (next !== null) {
      event.preventDefault();
      entries[next]?.focus();
    }
  };

  if (!server) return null;
  return createPortal(
    <div
      ref={menu}
      role="menu"
      className="row-menu"
      aria-label={t('rowMenu.label', { name: server.name })}
      style={{ left: position.left, top: position.top }}
      onKeyDown={onKeyDown}
      onContextMenu={(event) => event.preventDefault()}
    >
      {items.map((item) => (
        <button
          key={item.action}
          type="button"
          role="menuitem"
          tabIndex={-1}
          className="row-menu-item"
          aria-disabled={item.enabled ? undefined : 'true'}
          title={item.why ? t(item.why) : undefined}
          onClick={() => item.enabled && run(item.action)}
        >
          {item.action === 'speed-test' && forSelection ? t('rowMenu.speedTestSelected', { n: format.number(selected.length) }) : t(ACTION_KEYS[item.action])}
        </button>
      ))}
    </div>,
    document.body,
  );
}
