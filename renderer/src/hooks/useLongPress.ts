import { type KeyboardEvent, type MouseEvent, type PointerEvent, useCallback, useEffect, useRef } from 'react';

/** How long a press must be held to count as a long press (spec/auto.md: "hold", ≥ 500 ms). */
export const LONG_PRESS_MS = 500;
/** The click that ends a long press arrives right after the release; later clicks are real. */
const SWALLOW_CLICK_MS = 400;

/**
 * A button with a primary action (click, Enter, Space) and a secondary one reached by a long
 * press, a right-click, Shift+F10 or the context-menu key. A long press runs only the secondary
 * action: the click that ends it is swallowed, and only that click.
 */
export function usePressActions(primary: () => void, secondary: () => void) {
  const timer = useRef<ReturnType<typeof setTimeout> | null>(null);
  const pressing = useRef(false);
  const fired = useRef(false);
  const swallowClick = useRef(false);

  const cancelTimer = useCallback(() => {
    if (timer.current !== null) clearTimeout(timer.current);
    timer.current = null;
  }, []);
  useEffect(() => cancelTimer, [cancelTimer]);

  const endPress = (releasedHere: boolean) => {
    cancelTimer();
    pressing.current = false;
    if (fired.current && releasedHere) {
      swallowClick.current = true;
      setTimeout(() => {
        swallowClick.current = false;
      }, SWALLOW_CLICK_MS);
    }
    fired.current = false;
  };

  return {
    onPointerDown: (event: PointerEvent) => {
      if (event.button !== 0) return;
      cancelTimer();
      pressing.current = true;
      fired.current = false;
      timer.current = setTimeout(() => {
        timer.current = null;
        fired.current = true;
        secondary();
      }, LONG_PRESS_MS);
    },
    onPointerUp: () => endPress(true),
    onPointerLeave: () => endPress(false),
    onPointerCancel: () => endPress(false),
    onClick: (event: MouseEvent) => {
      if (swallowClick.current) {
        swallowClick.current = false;
        event.preventDefault();
        return;
      }
      primary();
    },
    onContextMenu: (event: MouseEvent) => {
      event.preventDefault();
      cancelTimer();
      if (fired.current) return; // a touch long-press already opened it
      if (pressing.current) fired.current = true; // touch: swallow the click after the release
      secondary();
    },
    onKeyDown: (event: KeyboardEvent) => {
      if ((event.key === 'F10' && event.shiftKey) || event.key === 'ContextMenu') {
        event.preventDefault();
        secondary();
      }
    },
  };
}
