import { act, cleanup, fireEvent, screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { AppSnapshot } from '../../../shared/ipc/contract';
import { renderWithStore } from '../testing/render';
import { sampleSnapshot, server, subscription } from '../testing/sample-world';
import { Dialogs } from './Dialogs';
import { ServerList } from './ServerList';
import { ListToolbar } from './Toolbar';

vi.setConfig({ testTimeout: 20_000 });

afterEach(() => {
  cleanup();
  vi.useRealTimers();
});

const NOW = Date.now();

/** Subscription A with three servers; connected to `a1`; `excluded` marked. */
function threeServers(excluded: string[] = []): AppSnapshot {
  const base = sampleSnapshot(NOW);
  const servers = [server('a1', 'A', 'Alpha'), server('a2', 'A', 'Bravo'), server('a3', 'A', 'Charlie')];
  return {
    ...base,
    subscriptions: [subscription('A', 'Provider A', servers)],
    statuses: {},
    connection: { ...base.connection, serverId: 'a1' },
    auto: { ...base.auto, subscriptionId: 'A', excluded: { A: excluded } },
  };
}

function renderList(snapshot: AppSnapshot) {
  return renderWithStore(
    <>
      <ListToolbar />
      <ServerList />
      <Dialogs />
    </>,
    snapshot,
  );
}

const row = (id: string) => document.querySelector(`[role="listitem"][data-server-id="${id}"]`) as HTMLElement;
const menuItems = () => within(screen.getByRole('menu')).getAllByRole('menuitem');

describe("a server row's menu", () => {
  it('opens on right-click at the pointer with Connect, Test, Speed test, Exclude from Auto, Share and Details, the first focused', () => {
    renderList(threeServers());
    fireEvent.contextMenu(row('a2'), { clientX: 40, clientY: 60 });
    const menu = screen.getByRole('menu', { name: 'Actions for Bravo' });
    expect(menuItems().map((i) => i.textContent)).toEqual(['Connect', 'Test', 'Speed test', 'Exclude from Auto', 'Share…', 'Details']);
    expect(document.activeElement).toBe(menuItems()[0]);
    expect(menu.style.left).toBe('40px');
  });

  it('opens from the keyboard (Shift+F10 and the menu key); arrows move, Escape closes and gives the focus back to the row', () => {
    renderList(threeServers());
    row('a2').focus();
    fireEvent.keyDown(row('a2'), { key: 'F10', shiftKey: true });
    expect(screen.getByRole('menu')).toBeTruthy();
    fireEvent.keyDown(screen.getByRole('menu'), { key: 'ArrowDown' });
    expect(document.activeElement?.textContent).toBe('Test');
    fireEvent.keyDown(screen.getByRole('menu'), { key: 'ArrowUp' });
    fireEvent.keyDown(screen.getByRole('menu'), { key: 'ArrowUp' });
    expect(document.activeElement?.textContent).toBe('Details');
    fireEvent.keyDown(screen.getByRole('menu'), { key: 'Escape' });
    expect(screen.queryByRole('menu')).toBeNull();
    expect(document.activeElement).toBe(row('a2'));
    fireEvent.keyDown(row('a2'), { key: 'ContextMenu' });
    expect(screen.getByRole('menu')).toBeTruthy();
  });

  it('opens on a long press without connecting, and a short click still connects', () => {
    vi.useFakeTimers();
    const { client } = renderList(threeServers());
    fireEvent.pointerDown(row('a3'), { button: 0, clientX: 10, clientY: 10 });
    act(() => vi.advanceTimersByTime(520));
    expect(screen.getByRole('menu', { name: 'Actions for Charlie' })).toBeTruthy();
    fireEvent.pointerUp(row('a3'));
    fireEvent.click(row('a3'));
    expect(client.callsTo('connect')).toEqual([]);
    fireEvent.keyDown(screen.getByRole('menu'), { key: 'Escape' });
    act(() => vi.advanceTimersByTime(500));
    fireEvent.pointerDown(row('a3'), { button: 0 });
    fireEvent.pointerUp(row('a3'));
    fireEvent.click(row('a3'));
    expect(client.callsTo('connect')).toEqual([{ serverId: 'a3' }]);
  });

  it('Exclude saves the same list the exclude dialog would, and the dialog then shows it marked', async () => {
    const { client } = renderList(threeServers(['a3']));
    fireEvent.contextMenu(row('a2'));
    fireEvent.click(within(screen.getByRole('menu')).getByRole('menuitem', { name: 'Exclude from Auto' }));
    expect(screen.queryByRole('menu')).toBeNull();
    expect(client.callsTo('setExcluded')).toEqual([{ subscriptionId: 'A', serverIds: ['a3', 'a2'] }]);
    await act(async () => undefined);
    fireEvent.contextMenu(row('a2'));
    fireEvent.click(within(screen.getByRole('menu')).getByRole('menuitem', { name: 'Include in Auto' }));
    expect(client.callsTo('setExcluded').at(-1)).toEqual({ subscriptionId: 'A', serverIds: ['a3'] });
  });

  it('will not exclude the last server Auto may use, and says why', () => {
    const { client } = renderList(threeServers(['a1', 'a3']));
    fireEvent.contextMenu(row('a2'));
    const exclude = within(screen.getByRole('menu')).getByRole('menuitem', { name: 'Exclude from Auto' });
    expect(exclude.getAttribute('aria-disabled')).toBe('true');
    expect(exclude.title).toBe('At least one server must stay available to Auto.');
    fireEvent.click(exclude);
    expect(client.callsTo('setExcluded')).toEqual([]);
  });

  it('Details and Share open their dialogs; Connect connects', () => {
    const { client } = renderList(threeServers());
    fireEvent.contextMenu(row('a2'));
    fireEvent.click(within(screen.getByRole('menu')).getByRole('menuitem', { name: 'Details' }));
    expect(screen.getByRole('dialog')).toBeTruthy();
    fireEvent.keyDown(screen.getByRole('dialog'), { key: 'Escape' });
    fireEvent.contextMenu(row('a2'));
    fireEvent.click(within(screen.getByRole('menu')).getByRole('menuitem', { name: 'Connect' }));
    expect(client.callsTo('connect')).toEqual([{ serverId: 'a2' }]);
  });

  it('Speed test measures that one server', () => {
    const { client } = renderList(threeServers());
    fireEvent.contextMenu(row('a2'));
    fireEvent.click(within(screen.getByRole('menu')).getByRole('menuitem', { name: 'Speed test' }));
    expect(screen.queryByRole('menu')).toBeNull();
    expect(client.callsTo('startSpeedTest')).toMatchObject([{ scope: { kind: 'servers', serverIds: ['a2'] } }]);
  });

  it('on one of several selected rows, Speed test measures the selection; on a row outside it, that row alone', () => {
    const { client } = renderList(threeServers());
    fireEvent.click(row('a1'), { ctrlKey: true });
    fireEvent.click(row('a3'), { metaKey: true });
    expect(client.callsTo('connect')).toEqual([]);
    fireEvent.contextMenu(row('a3'));
    fireEvent.click(within(screen.getByRole('menu')).getByRole('menuitem', { name: 'Speed test the selected (2)' }));
    expect(client.callsTo('startSpeedTest')).toMatchObject([{ scope: { kind: 'servers', serverIds: ['a1', 'a3'] } }]);
    fireEvent.contextMenu(row('a2'));
    expect(within(screen.getByRole('menu')).getByRole('menuitem', { name: 'Speed test' })).toBeTruthy();
  });
});

describe('selecting rows', () => {
  const selected = () => [...document.querySelectorAll('[role="listitem"][data-selected="true"]')].map((e) => e.getAttribute('data-server-id'));

  it('Ctrl/Cmd-click toggles, Shift-click selects a range, a plain click connects and clears', () => {
    const { client } = renderList(threeServers());
    fireEvent.click(row('a1'), { ctrlKey: true });
    expect(selected()).toEqual(['a1']);
    fireEvent.click(row('a3'), { shiftKey: true });
    expect(selected()).toEqual(['a1', 'a2', 'a3']);
    fireEvent.click(row('a2'), { ctrlKey: true });
    expect(selected()).toEqual(['a1', 'a3']);
    const bar = screen.getByRole('group', { name: 'Selected servers' });
    expect(bar.textContent).toContain('Selected: 2');
    fireEvent.click(within(bar).getByRole('button', { name: 'Speed test' }));
    expect(client.callsTo('startSpeedTest')).toMatchObject([{ scope: { kind: 'servers', serverIds: ['a1', 'a3'] } }]);
    expect(client.callsTo('connect')).toEqual([]);
    fireEvent.click(row('a2'));
    expect(client.callsTo('connect')).toEqual([{ serverId: 'a2' }]);
    expect(selected()).toEqual([]);
    expect(screen.queryByRole('group', { name: 'Selected servers' })).toBeNull();
  });

  it('from the keyboard: Space toggles, Shift+arrows extend, Ctrl+A selects all, Escape clears', () => {
    renderList(threeServers());
    row('a1').focus();
    fireEvent.keyDown(row('a1'), { key: ' ' });
    expect(selected()).toEqual(['a1']);
    fireEvent.keyDown(row('a1'), { key: ' ' });
    expect(selected()).toEqual([]);
    fireEvent.keyDown(row('a1'), { key: 'ArrowDown', shiftKey: true });
    expect(selected()).toEqual(['a1', 'a2']);
    fireEvent.keyDown(row('a2'), { key: 'ArrowDown', shiftKey: true });
    expect(selected()).toEqual(['a1', 'a2', 'a3']);
    fireEvent.keyDown(row('a3'), { key: 'ArrowUp', shiftKey: true });
    expect(selected()).toEqual(['a1', 'a2']);
    fireEvent.keyDown(row('a2'), { key: 'Escape' });
    expect(selected()).toEqual([]);
    fireEvent.keyDown(row('a2'), { key: 'a', ctrlKey: true });
    expect(selected()).toEqual(['a1', 'a2', 'a3']);
  });
});
