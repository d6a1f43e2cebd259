import { observeElementRect, useVirtualizer, type Virtualizer } from '@tanstack/react-virtual';
import { useCallback, useEffect, useLayoutEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useAppStore, useAppStoreApi } from '../store/context';
import { type ListRow, selectListRows } from '../store/servers.selectors';
import { RowMenu, type RowMenuRequest } from './RowMenu';
import { ROW_HEIGHT, ServerRow } from './ServerRow';
import { SubscriptionHeader } from './SubscriptionHeader';

const HEADER_ESTIMATE = 92;
const EMPTY_HEIGHT = 48;
/** Used until the scroll box has a size of its own (first frame, hidden tab, jsdom). */
const FALLBACK_VIEWPORT = { width: 900, height: 720 };

function estimate(row: ListRow | undefined): number {
  if (!row) return ROW_HEIGHT;
  return row.kind === 'subscription' ? HEADER_ESTIMATE : row.kind === 'empty' ? EMPTY_HEIGHT : ROW_HEIGHT;
}

/** Where the window is narrow enough for the panes to stack (styles.css uses the same width). */
const STACKED_QUERY = '(max-width: 1000px)';

/** Whether the panes stack: then the page scrolls, and the list within it, as one. */
function useStacked(): boolean {
  const query = typeof window !== 'undefined' && typeof window.matchMedia === 'function' ? window.matchMedia(STACKED_QUERY) : null;
  const [stacked, setStacked] = useState(() => query?.matches ?? false);
  useEffect(() => {
    if (!query) return;
    const changed = () => setStacked(query.matches);
    query.addEventListener('change', changed);
    return () => query.removeEventListener('change', changed);
  }, [query]);
  return stacked;
}

/** Measures the scroll box, but never as 0×0: an unmeasured box still shows a screenful. */
function observeRectWithFallback(instance: Virtualizer<HTMLElement, Element>, callback: (rect: { width: number; height: number }) => void) {
  return observeElementRect(instance, (rect) => callback(rect.height > 0 ? rect : FALLBACK_VIEWPORT));
}

/**
 * The server list: every subscription in list order with its servers, virtualized so thousands of
 * rows scroll smoothly (only the visible ones exist in the DOM). Rows subscribe to their own status,
 * so a burst of ping updates re-renders only the rows on screen.
 */
export function ServerList() {
  const { t } = useTranslation();
  const rows = useAppStore(selectListRows);
  const store = useAppStoreApi();
  const ready = useAppStore((s) => s.ready);
  const scroller = useRef<HTMLDivElement>(null);
  const [menu, setMenu] = useState<RowMenuRequest | null>(null);
  const closeMenu = useCallback(() => setMenu(null), []);
  // Stacked panes scroll as one page (never a small list box inside a scrolling page): the
  // list is then as tall as its rows and the page's scroller is the one the rows are placed in,
  // from where the list starts in it.
  const stacked = useStacked();
  const page = () => (stacked ? (scroller.current?.closest<HTMLElement>('.layout') ?? null) : null);
  const [scrollMargin, setScrollMargin] = useState(0);
  useLayoutEffect(() => {
    const outer = page();
    const list = scroller.current;
    if (!outer || !list) return setScrollMargin(0);
    const measure = () => setScrollMargin(list.getBoundingClientRect().top - outer.getBoundingClientRect().top + outer.scrollTop);
    measure();
    if (typeof ResizeObserver === 'undefined') return;
    const observer = new ResizeObserver(measure);
    observer.observe(outer);
    return () => observer.disconnect();
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [stacked]);
  // The virtualizer's functions change identity as it measures; nothing here memoizes them.
  // eslint-disable-next-line react-hooks/incompatible-library
  const virtualizer = useVirtualizer<HTMLElement, Element>({
    count: rows.length,
    getScrollElement: () => page() ?? scroller.current,
    scrollMargin,
    estimateSize: (index) => estimate(rows[index]),
    getItemKey: (index) => rows[index]?.key ?? index,
    overscan: 8,
    observeElementRect: observeRectWithFallback,
  });

  const onNavigate = useCallback(
    (from: number, key: string, extend = false) => {
      const pageRows = Math.max(1, Math.floor(((page() ?? scroller.current)?.clientHeight ?? 600) / ROW_HEIGHT) - 1);
      const step = key === 'ArrowDown' ? 1 : key === 'ArrowUp' ? -1 : key === 'PageDown' ? pageRows : key === 'PageUp' ? -pageRows : 0;
      const servers = rows.map((row, index) => (row.kind === 'server' ? index : -1)).filter((index) => index >= 0);
      if (servers.length === 0) return;
      let target: number;
      if (key === 'Home') target = servers[0]!;
      else if (key === 'End') target = servers[servers.length - 1]!;
      else {
        const at = servers.indexOf(from);
        target = servers[Math.max(0, Math.min(servers.length - 1, at + step))]!;
      }
      if (extend) {
        // Shift+arrow: the range runs from the anchor (the row it started on, if nothing was selected yet).
        const { selection, select } = store.getState();
        const fromRow = rows[from];
        const targetRow = rows[target];
        if (selection.ids.length === 0 && fromRow?.kind === 'server') select({ kind: 'toggle', id: fromRow.serverId });
        if (targetRow?.kind === 'server') select({ kind: 'range', id: targetRow.serverId });
      }
      virtualizer.scrollToIndex(target, { align: 'auto' });
      const focus = (tries: number) => {
        const element = scroller.current?.querySelector<HTMLElement>(`[data-row-index="${target}"]`);
        if (element) element.focus({ preventScroll: true });
        else if (tries > 0) requestAnimationFrame(() => focus(tries - 1));
      };
      focus(5);
    },
    // eslint-disable-next-line react-hooks/exhaustive-deps
    [rows, virtualizer, stacked, store],
  );

  if (ready && rows.length === 0) {
    return (
      <div className="list-empty">
        <p>{t('list.empty')}</p>
      </div>
    );
  }

  return (
    <div ref={scroller} className="server-scroller" id="server-list">
      <span id="row-hint" className="visually-hidden">
        {t('list.rowHint')}
      </span>
      <span id="row-menu-hint" className="visually-hidden">
        {t('rowMenu.hint')}
      </span>
      {menu && <RowMenu key={`${menu.serverId} ${menu.x} ${menu.y}`} request={menu} onClose={closeMenu} />}
      <div role="list" aria-label={t('list.label')} className="server-canvas" style={{ blockSize: virtualizer.getTotalSize() }}>
        {virtualizer.getVirtualItems().map((item) => {
          const row = rows[item.index];
          if (!row) return null;
          return (
            <div
              key={item.key}
              data-index={item.index}
              ref={row.kind === 'server' ? undefined : virtualizer.measureElement}
              className={`virtual-item ${row.kind}`}
              role={row.kind === 'server' ? 'none' : 'listitem'}
              style={{ transform: `translateY(${item.start - scrollMargin}px)`, blockSize: row.kind === 'server' ? ROW_HEIGHT : undefined }}
            >
              {row.kind === 'subscription' ? (
                <SubscriptionHeader subscriptionId={row.subscriptionId} matched={row.matched} />
              ) : row.kind === 'empty' ? (
                <p className="group-empty">{t(row.reason === 'no-servers' ? 'list.noServers' : 'list.noMatch')}</p>
              ) : (
                <ServerRow serverId={row.serverId} subscriptionId={row.subscriptionId} index={item.index} onNavigate={onNavigate} onMenu={setMenu} />
              )}
            </div>
          );
        })}
      </div>
    </div>
  );
}
