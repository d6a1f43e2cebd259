import { act, cleanup, fireEvent, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { renderWithStore } from '../testing/render';
import { sampleSnapshot } from '../testing/sample-world';
import { Dialogs } from './Dialogs';
import { SubscriptionHeader } from './SubscriptionHeader';

// jsdom role queries and typed input are slow on a busy machine: room to finish, not a sleep.
vi.setConfig({ testTimeout: 20_000 });

const NOW = Date.now();

afterEach(() => {
  cleanup();
  vi.useRealTimers();
});

function setup() {
  const rendered = renderWithStore(
    <>
      <SubscriptionHeader subscriptionId="A" matched={6} />
      <SubscriptionHeader subscriptionId="B" matched={3} />
      <Dialogs />
    </>,
    sampleSnapshot(NOW),
  );
  const autoA = screen.getByRole('button', { name: /^Auto \(Provider A\)/ });
  return { ...rendered, autoA };
}

describe('the Auto button', () => {
  it('is a toggle button whose name starts with "Auto", pressed for the subscription Auto is on for', () => {
    const { autoA } = setup();
    expect(autoA.getAttribute('aria-pressed')).toBe('true');
    expect(screen.getByRole('button', { name: /^Auto \(Backup B\)/ }).getAttribute('aria-pressed')).toBe('false');
  });

  it('a short click toggles Auto and opens nothing', async () => {
    const { autoA, client, store } = setup();
    await userEvent.click(autoA);
    expect(client.callsTo('setAuto')).toEqual([{ subscriptionId: null }]);
    expect(store.getState().dialog).toEqual({ kind: 'none' });
    expect(autoA.getAttribute('aria-pressed')).toBe('false');
    await userEvent.click(screen.getByRole('button', { name: /^Auto \(Backup B\)/ }));
    expect(client.callsTo('setAuto').at(-1)).toEqual({ subscriptionId: 'B' });
  });

  it('a long press (500 ms) opens the exclusion dialog and does not toggle Auto', () => {
    vi.useFakeTimers();
    const { autoA, client } = setup();
    fireEvent.pointerDown(autoA, { button: 0, pointerType: 'mouse' });
    act(() => vi.advanceTimersByTime(499));
    expect(screen.queryByRole('dialog')).toBeNull();
    act(() => vi.advanceTimersByTime(1));
    expect(screen.getByRole('dialog', { name: 'Servers Auto will not use' }).isConnected).toBe(true);
    fireEvent.pointerUp(autoA);
    fireEvent.click(autoA);
    expect(client.callsTo('setAuto')).toEqual([]);
  });

  it('a press released before 500 ms is a click', () => {
    vi.useFakeTimers();
    const { autoA, client } = setup();
    fireEvent.pointerDown(autoA, { button: 0 });
    act(() => vi.advanceTimersByTime(300));
    fireEvent.pointerUp(autoA);
    fireEvent.click(autoA);
    act(() => vi.advanceTimersByTime(1000));
    expect(screen.queryByRole('dialog')).toBeNull();
    expect(client.callsTo('setAuto')).toEqual([{ subscriptionId: null }]);
  });

  it('after a long press only the click that ended it is swallowed', () => {
    vi.useFakeTimers();
    const { autoA, client, store } = setup();
    fireEvent.pointerDown(autoA, { button: 0 });
    act(() => vi.advanceTimersByTime(600));
    fireEvent.pointerUp(autoA);
    fireEvent.click(autoA);
    act(() => store.getState().closeDialog());
    act(() => vi.advanceTimersByTime(1000));
    fireEvent.click(autoA); // a later click (or Enter) toggles again
    expect(client.callsTo('setAuto')).toEqual([{ subscriptionId: null }]);
  });

  it('a right-click opens the dialog and does not toggle', () => {
    const { autoA, client } = setup();
    fireEvent.contextMenu(autoA);
    expect(screen.getByRole('dialog').isConnected).toBe(true);
    expect(client.callsTo('setAuto')).toEqual([]);
  });

  it.each([
    ['Shift+F10', { key: 'F10', shiftKey: true }],
    ['the context-menu key', { key: 'ContextMenu' }],
  ])('%s opens the dialog from the keyboard', (_name, key) => {
    const { autoA, client } = setup();
    autoA.focus();
    fireEvent.keyDown(autoA, key);
    const dialog = screen.getByRole('dialog');
    expect(within(dialog).getByRole('heading', { name: 'Servers Auto will not use' }).isConnected).toBe(true);
    expect(client.callsTo('setAuto')).toEqual([]);
  });

  it('Enter and Space toggle from the keyboard', async () => {
    const { autoA, client } = setup();
    autoA.focus();
    await userEvent.keyboard('{Enter}');
    await userEvent.keyboard(' ');
    expect(client.callsTo('setAuto')).toEqual([{ subscriptionId: null }, { subscriptionId: 'A' }]);
  });
});
