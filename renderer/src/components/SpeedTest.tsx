/**
 * The bulk speed test in the window: the action that starts it (for the selected servers, the
 * servers the search shows, one subscription, or all), the selection's own bar (how many are
 * selected, Speed test, Clear), its progress bar with time left and Cancel, and a server's
 * measured speed with its age (the top bar and the details show it). One server's own run starts
 * from its row menu (RowMenu.tsx).
 */
import { ProgressTrack } from './ProgressTrack';
import { type KeyboardEvent, useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useShallow } from 'zustand/react/shallow';
import type { SpeedTestResult, SpeedTestScope } from '../../../shared/domain/speed-test';
import { useFormat } from '../hooks/useFormat';
import { useNow } from '../hooks/useNow';
import { useAppStore } from '../store/context';
import { selectSelectedIds } from '../store/selection';
import { selectShownServerIds } from '../store/servers.selectors';
import { remainingAt, selectSpeedTestView } from '../store/speedTest';
import { SpeedIcon } from './icons';

interface ScopeChoice {
  key: string;
  label: string;
  scope: SpeedTestScope;
}

/** "Speed test" and its menu of what to test. */
export function SpeedTestAction() {
  const { t } = useTranslation();
  const format = useFormat();
  const [open, setOpen] = useState(false);
  const menu = useRef<HTMLDivElement>(null);
  const button = useRef<HTMLButtonElement>(null);
  const running = useAppStore((s) => s.speedTest.running);
  const ready = useAppStore((s) => s.ready);
  const start = useAppStore((s) => s.startSpeedTest);
  const filtered = useAppStore((s) => s.filter.trim() !== '');
  const shown = useAppStore(useShallow(selectShownServerIds));
  const selected = useAppStore(useShallow(selectSelectedIds));
  const subscriptions = useAppStore((s) => s.subscriptions).map((sub) => ({ id: sub.id, name: sub.name, count: sub.servers.length }));
  const all = subscriptions.reduce((n, s) => n + s.count, 0);

  const choices: ScopeChoice[] = [
    ...(selected.length > 0 ? [{ key: 'selected', label: t('speedTest.selected', { n: format.number(selected.length) }), scope: { kind: 'servers', serverIds: selected } as const }] : []),
    ...(filtered && shown.length > 0 ? [{ key: 'shown', label: t('speedTest.shown', { n: format.number(shown.length) }), scope: { kind: 'servers', serverIds: shown } as const }] : []),
    ...subscriptions
      .filter((s) => s.count > 0)
      .map((s) => ({ key: `s:${s.id}`, label: t('speedTest.subscription', { name: `\u2068${s.name}\u2069`, n: format.number(s.count) }), scope: { kind: 'subscription', subscriptionId: s.id } as const })),
    { key: 'all', label: t('speedTest.all', { n: format.number(all) }), scope: { kind: 'all' } as const },
  ];

  useEffect(() => {
    if (!open) return;
    menu.current?.querySelector<HTMLElement>('[role="menuitem"]')?.focus();
    const outside = (event: PointerEvent) => {
      if (!menu.current?.contains(event.target as Node) && !button.current?.contains(event.target as Node)) setOpen(false);
    };
    document.addEventListener('pointerdown', outside, true);
    return () => document.removeEventListener('pointerdown', outside, true);
  }, [open]);

  const close = () => {
    setOpen(false);
    button.current?.focus();
  };
  const onKeyDown = (event: KeyboardEvent<HTMLDivElement>) => {
    const items = [...(menu.current?.querySelectorAll<HTMLElement>('[role="menuitem"]') ?? [])];
    const at = items.indexOf(document.activeElement as HTMLElement);
    if (event.key === 'Escape') close();
    else if (event.key === 'ArrowDown') items[(at + 1) % items.length]?.focus();
    else if (event.key === 'ArrowUp') items[(at - 1 + items.length) % items.length]?.focus();
    else return;
    event.preventDefault();
  };

  return (
    <span className="speed-test-action">
      <button
        ref={button}
        type="button"
        className="button"
        aria-haspopup="menu"
        aria-expanded={open}
        disabled={!ready || running || all === 0}
        title={t('speedTest.action')}
        aria-label={t('speedTest.action')}
        onClick={() => setOpen(!open)}
      >
        <SpeedIcon />
        <span className="collapsible-label">{t('speedTest.action')}</span>
      </button>
      {open && (
        <div ref={menu} className="row-menu speed-test-menu" role="menu" aria-label={t('speedTest.menu')} onKeyDown={onKeyDown}>
          {choices.map((choice) => (
            <button
              key={choice.key}
              type="button"
              role="menuitem"
              className="row-menu-item"
              onClick={() => {
                close();
                void start(choice.scope);
              }}
            >
              {choice.label}
            </button>
          ))}
        </div>
      )}
    </span>
  );
}

/** While servers are selected: how many, a speed test of them, and Clear (Escape in the list does the same). */
export function SelectionActions() {
  const { t } = useTranslation();
  const format = useFormat();
  const selected = useAppStore(useShallow(selectSelectedIds));
  const running = useAppStore((s) => s.speedTest.running);
  const start = useAppStore((s) => s.startSpeedTest);
  const select = useAppStore((s) => s.select);
  if (selected.length === 0) return null;
  return (
    <span className="selection-actions" role="group" aria-label={t('selection.label')}>
      <span className="selection-count" aria-live="polite">
        {t('selection.count', { n: format.number(selected.length) })}
      </span>
      <button
        type="button"
        className="button small"
        disabled={running}
        title={running ? t('rowMenu.speedTestRunning') : undefined}
        onClick={() => void start({ kind: 'servers', serverIds: selected })}
      >
        {t('selection.speedTest')}
      </button>
      <button type="button" className="button small" onClick={() => select({ kind: 'clear' })}>
        {t('selection.clear')}
      </button>
    </span>
  );
}

/** "Speed test 3 of 50 · 2 min left" with its bar and Cancel, while a run is under way. */
export function SpeedTestProgressView() {
  const running = useAppStore((s) => s.speedTest.running);
  // Only a run under way has a clock ticking for its time left.
  return running ? <RunningSpeedTest /> : null;
}

function RunningSpeedTest() {
  const { t } = useTranslation();
  const format = useFormat();
  const view = useAppStore(useShallow(selectSpeedTestView));
  const cancel = useAppStore((s) => s.cancelSpeedTest);
  const now = useNow(1000, view.remainingAt);
  const remainingMs = remainingAt(view, now);
  const counted = t('speedTest.progress', { done: format.number(view.done), total: format.number(view.total) });
  const left = view.cancelling ? t('speedTest.cancelling') : remainingMs === null ? t('speedTest.estimating') : t('speedTest.left', { duration: format.duration(remainingMs) });
  const text = `${counted} · ${left}`;
  return (
    <span className="test-progress speed-test-progress">
      <ProgressTrack label={t('speedTest.progressLabel')} done={view.done} total={view.total} fraction={view.fraction} text={text} />
      <button type="button" className="button small" disabled={view.cancelling} onClick={() => void cancel()}>
        {t('speedTest.cancel')}
      </button>
    </span>
  );
}

/** A server's speed-test figure with its age ("9.8 MB/s, 3 minutes ago"), or why it failed. */
export function SpeedFigure({ result }: { result: SpeedTestResult }) {
  const { t } = useTranslation();
  const format = useFormat();
  const now = useNow(30_000, result.at);
  const age = format.relative(result.at, now);
  if (result.bytesPerSecond === null) {
    return (
      <span className="speed-figure failed" title={result.error ?? undefined}>
        {t('speedTest.failedAt', { age })}
      </span>
    );
  }
  return (
    <span className="speed-figure" title={t('speedTest.figureHint', { size: format.bytes(result.bytes) })}>
      <bdi className="speed-value">{format.rate(result.bytesPerSecond)}</bdi> <span className="speed-age">{age}</span>
    </span>
  );
}
