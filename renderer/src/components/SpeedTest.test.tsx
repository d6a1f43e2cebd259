import { act, cleanup, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { IDLE_SPEED_TEST, type SpeedTestResult } from '../../../shared/domain/speed-test';
import type { AppSnapshot } from '../../../shared/ipc/contract';
import { selectListRows } from '../store/servers.selectors';
import { renderWithStore } from '../testing/render';
import { sampleSnapshot } from '../testing/sample-world';
import { App } from './App';
import { Dialogs } from './Dialogs';
import { AppActions, ListToolbar } from './Toolbar';

vi.setConfig({ testTimeout: 20_000 });
afterEach(cleanup);

const NOW = Date.now();
const measured = (bytesPerSecond: number, ageMs = 5 * 60_000): SpeedTestResult => ({ at: NOW - ageMs, bytes: 10_000_000, bytesPerSecond, error: null, fromCache: false });

function world(speeds: Record<string, SpeedTestResult> = {}): AppSnapshot {
  const base = sampleSnapshot(NOW);
  const statuses = Object.fromEntries(Object.entries(base.statuses).map(([id, s]) => [id, { ...s, speedTest: speeds[id] ?? null }]));
  return { ...base, statuses };
}

const toolbar = (language: 'en' | 'fa' = 'en', snapshot = world()) =>
  renderWithStore(
    <>
      <AppActions />
      <ListToolbar />
    </>,
    snapshot,
    { language },
  );

describe('the speed test in the window', () => {
  it('offers the search’s servers, each subscription and all, and starts the one chosen', async () => {
    const { client, store } = toolbar();
    act(() => store.getState().setFilter('Stockholm'));
    await userEvent.click(screen.getByRole('button', { name: 'Speed test' }));
    const menu = screen.getByRole('menu', { name: 'What to test' });
    expect(within(menu).getAllByRole('menuitem').map((item) => item.textContent)).toEqual([
      'Servers the search shows (1)',
      '\u2068Provider A\u2069 (6)',
      '\u2068Backup B\u2069 (3)',
      'All servers (9)',
    ]);
    await userEvent.click(within(menu).getByRole('menuitem', { name: /Backup B/ }));
    expect(client.callsTo('startSpeedTest')).toEqual([{ scope: { kind: 'subscription', subscriptionId: 'B' } }]);
    expect(screen.queryByRole('menu')).toBeNull();
    // One run at a time: the action waits for this one.
    expect((screen.getByRole('button', { name: 'Speed test' }) as HTMLButtonElement).disabled).toBe(true);
  });

  it('offers the selected servers first, in the list’s order', async () => {
    const { client, store } = toolbar();
    const ids = store.getState().subscriptions[0]!.servers.map((x) => x.id);
    act(() => {
      store.getState().select({ kind: 'toggle', id: ids[2]! });
      store.getState().select({ kind: 'toggle', id: ids[0]! });
    });
    // The top bar's action (rendered first); the selection's own bar has a Speed test button too.
    await userEvent.click(screen.getAllByRole('button', { name: 'Speed test' })[0]!);
    const menu = screen.getByRole('menu', { name: 'What to test' });
    expect(within(menu).getAllByRole('menuitem')[0]?.textContent).toBe('Selected servers (2)');
    await userEvent.click(within(menu).getByRole('menuitem', { name: 'Selected servers (2)' }));
    expect(client.callsTo('startSpeedTest')).toEqual([{ scope: { kind: 'servers', serverIds: [ids[0], ids[2]] } }]);
  });

  it('shows servers done of the total and the time left, and Cancel stops it', async () => {
    const { client } = toolbar();
    await userEvent.click(screen.getByRole('button', { name: 'Speed test' }));
    await userEvent.click(screen.getByRole('menuitem', { name: 'All servers (9)' }));
    const bar = screen.getByRole('progressbar', { name: 'Speed test progress' });
    expect(bar.getAttribute('aria-valuetext')).toBe('Speed test 0 of 9 · estimating the time left');
    act(() => client.emit('speedTestProgress', { ...IDLE_SPEED_TEST, running: true, done: 3, total: 9, startedAt: NOW, remainingMs: 120_000 }));
    expect(bar.getAttribute('aria-valuenow')).toBe('3');
    expect(bar.getAttribute('aria-valuetext')).toBe('Speed test 3 of 9 · 2 min left');
    await userEvent.click(screen.getByRole('button', { name: 'Cancel' }));
    expect(client.callsTo('cancelSpeedTest')).toEqual([{}]);
    expect(screen.queryByRole('progressbar', { name: 'Speed test progress' })).toBeNull();
  });

  it('speaks Persian with Persian digits', async () => {
    const { client } = toolbar('fa');
    act(() => client.emit('speedTestProgress', { ...IDLE_SPEED_TEST, running: true, done: 3, total: 9, startedAt: NOW, remainingMs: 120_000 }));
    const bar = screen.getByRole('progressbar', { name: 'پیشرفت آزمون سرعت' });
    expect(bar.getAttribute('aria-valuetext')).toMatch(/^آزمون سرعت ۳ از ۹ · .*۲.* مانده$/);
    expect(screen.getByRole('button', { name: 'لغو' })).toBeTruthy();
  });

  it('sorts the list by speed: measured fastest first, then untested, then failed', () => {
    const failed: SpeedTestResult = { at: NOW, bytes: 0, bytesPerSecond: null, error: 'refused', fromCache: false };
    const { store } = toolbar('en', world({ nl: measured(2_000_000), de: failed, jp: measured(9_000_000), fi: measured(500_000) }));
    act(() => store.getState().setSort('speed'));
    const order = selectListRows(store.getState()).filter((r) => r.kind === 'server' && r.subscriptionId === 'A').map((r) => (r.kind === 'server' ? r.serverId : ''));
    expect(order.slice(0, 3)).toEqual(['jp', 'nl', 'fi']);
    expect(order.at(-1)).toBe('de');
    expect(screen.getByRole('button', { name: 'Download speed' }).getAttribute('aria-pressed')).toBe('true');
  });

  it('shows the current server’s speed with its age in the top bar', () => {
    renderWithStore(<App root={document.createElement('html')} />, world({ fi: measured(9_800_000) }));
    const figure = document.querySelector('.topbar .speed-figure') as HTMLElement;
    expect(figure.textContent).toBe('9.8 MB/s 5 minutes ago');
  });

  it('makes a measured speed test the details’ download speed, with its size and age, and gives a failed one a row of its own', async () => {
    const failed: SpeedTestResult = { at: NOW - 2 * 3_600_000, bytes: 0, bytesPerSecond: null, error: 'the download did not start within 10 s', fromCache: false };
    const { store } = renderWithStore(<Dialogs />, world({ nl: measured(2_500_000), de: failed }));
    act(() => store.getState().openDialog({ kind: 'server-details', serverId: 'nl' }));
    let dialog = await screen.findByRole('dialog', { name: 'Netherlands · Amsterdam' });
    const row = (await within(dialog).findByText('Download speed', { selector: 'dt' })).nextElementSibling as HTMLElement;
    expect(row.textContent).toMatch(/^2\.5 MB\/s \(the .* speed test, 5 minutes ago\)/);
    expect(within(dialog).queryByText('Speed test', { selector: 'dt' })).toBeNull();
    act(() => store.getState().openDialog({ kind: 'server-details', serverId: 'de' }));
    dialog = await screen.findByRole('dialog', { name: 'Germany · Frankfurt' });
    const failedRow = (await within(dialog).findByText('Speed test', { selector: 'dt' })).nextElementSibling as HTMLElement;
    expect(failedRow.textContent).toBe('speed test failed 2 hours ago');
    expect(failedRow.querySelector('[title]')?.getAttribute('title')).toBe('the download did not start within 10 s');
  });

  it('counts the time left down between the host’s updates', () => {
    vi.useFakeTimers({ now: NOW, toFake: ['Date', 'setInterval', 'clearInterval'] });
    try {
      const { client } = toolbar();
      act(() => client.emit('speedTestProgress', { ...IDLE_SPEED_TEST, running: true, done: 1, total: 9, startedAt: NOW, remainingMs: 90_000 }));
      const bar = screen.getByRole('progressbar', { name: 'Speed test progress' });
      expect(bar.getAttribute('aria-valuetext')).toBe('Speed test 1 of 9 · 1 min 30 sec left');
      act(() => void vi.advanceTimersByTime(30_000));
      expect(bar.getAttribute('aria-valuetext')).toBe('Speed test 1 of 9 · 1 min left');
    } finally {
      vi.useRealTimers();
    }
  });
});
