import { act, cleanup, screen } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Dialog } from '../store/dialogs';
import { renderWithStore } from '../testing/render';
import { sampleSnapshot } from '../testing/sample-world';
import { Dialogs } from './Dialogs';

vi.setConfig({ testTimeout: 30_000 });

afterEach(cleanup);

/**
 * What a window holds on to that a dialog could leave behind: listeners on the window and the
 * document, intervals, and timers of a second or more (short ones are React's and the test
 * library's own, gone within a frame).
 */
function trackHeldResources() {
  const listeners: [EventTarget, string, unknown][] = [];
  const intervals = new Set<unknown>();
  const longTimers = new Set<unknown>();
  const real = {
    add: EventTarget.prototype.addEventListener,
    remove: EventTarget.prototype.removeEventListener,
    setInterval: globalThis.setInterval,
    clearInterval: globalThis.clearInterval,
    setTimeout: globalThis.setTimeout,
    clearTimeout: globalThis.clearTimeout,
  };
  const held = (target: EventTarget) => target === window || target === document;
  EventTarget.prototype.addEventListener = function (this: EventTarget, type: string, listener: EventListenerOrEventListenerObject | null, options?: boolean | AddEventListenerOptions) {
    if (held(this)) listeners.push([this, type, listener]);
    return real.add.call(this, type, listener, options);
  };
  EventTarget.prototype.removeEventListener = function (this: EventTarget, type: string, listener: EventListenerOrEventListenerObject | null, options?: boolean | EventListenerOptions) {
    const at = listeners.findIndex(([target, t, l]) => target === this && t === type && l === listener);
    if (at >= 0) listeners.splice(at, 1);
    return real.remove.call(this, type, listener, options);
  };
  globalThis.setInterval = ((handler: () => void, ms?: number, ...rest: unknown[]) => {
    const handle = real.setInterval(handler, ms, ...rest);
    intervals.add(handle);
    return handle;
  }) as typeof setInterval;
  globalThis.clearInterval = ((handle: Parameters<typeof clearInterval>[0]) => {
    intervals.delete(handle);
    real.clearInterval(handle);
  }) as typeof clearInterval;
  globalThis.setTimeout = ((handler: (...args: unknown[]) => void, ms?: number, ...rest: unknown[]) => {
    const long = (ms ?? 0) >= 1000;
    const handle: unknown = real.setTimeout(
      (...args: unknown[]) => {
        longTimers.delete(handle);
        handler(...args);
      },
      ms,
      ...rest,
    );
    if (long) longTimers.add(handle);
    return handle;
  }) as typeof setTimeout;
  globalThis.clearTimeout = ((handle: Parameters<typeof clearTimeout>[0]) => {
    longTimers.delete(handle);
    real.clearTimeout(handle);
  }) as typeof clearTimeout;
  return {
    count: () => ({ listeners: listeners.length, intervals: intervals.size, longTimers: longTimers.size }),
    restore: () => {
      EventTarget.prototype.addEventListener = real.add;
      EventTarget.prototype.removeEventListener = real.remove;
      Object.assign(globalThis, { setInterval: real.setInterval, clearInterval: real.clearInterval, setTimeout: real.setTimeout, clearTimeout: real.clearTimeout });
    },
  };
}

const DIALOGS: Exclude<Dialog, { kind: 'none' }>[] = [
  { kind: 'settings' },
  { kind: 'add-subscription' },
  { kind: 'server-details', serverId: 'fi' },
  { kind: 'exclude-servers', subscriptionId: 'A' },
  { kind: 'confirm-empty', subscriptionId: 'A' },
  { kind: 'confirm-remove', subscriptionId: 'A' },
  { kind: 'subscription-settings', subscriptionId: 'A' },
  { kind: 'share', target: { serverId: 'fi' } },
  { kind: 'share', target: { subscriptionId: 'A' } },
];

describe('a closed dialog leaves nothing behind', () => {
  it('opening and closing every dialog three times ends with the listeners and timers the window had before', async () => {
    const tracked = trackHeldResources();
    try {
      const { store } = renderWithStore(<Dialogs />, sampleSnapshot(Date.now()));
      await act(async () => undefined);
      const before = tracked.count();
      for (let round = 0; round < 3; round++) {
        for (const dialog of DIALOGS) {
          act(() => store.getState().openDialog(dialog));
          expect(screen.queryByRole('dialog')).not.toBeNull();
          // The details fetch the whole status and the history; their answers land while open.
          await act(async () => undefined);
          act(() => store.getState().closeDialog());
          await act(async () => undefined);
          expect(screen.queryByRole('dialog')).toBeNull();
          expect({ dialog: dialog.kind, ...tracked.count() }).toEqual({ dialog: dialog.kind, ...before });
        }
      }
    } finally {
      tracked.restore();
    }
  });
});
