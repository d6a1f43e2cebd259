import { act, cleanup, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { DEFAULT_SETTINGS } from '../../../shared/settings';
import { renderWithStore } from '../testing/render';
import { sampleSnapshot } from '../testing/sample-world';
import { createWindowI18n, loadCatalogue } from '../i18n/window';
import { App } from './App';
// The window's dialogs are a chunk it reads after its first frame: here, read before the tests.
import './Dialogs';

// jsdom role queries and typed input are slow on a busy machine: room to finish, not a sleep.
vi.setConfig({ testTimeout: 20_000 });

afterEach(cleanup);

const NOW = Date.now();

function renderApp(settings: Partial<typeof DEFAULT_SETTINGS> = {}, demo = true) {
  const root = document.createElement('html');
  const rendered = renderWithStore(<App root={root} />, { ...sampleSnapshot(NOW), demo, settings: { ...DEFAULT_SETTINGS, ...settings } });
  return { ...rendered, root };
}

describe('the app frame', () => {
  it.each([
    ['fa', 'rtl'],
    ['ar', 'rtl'],
    ['en', 'ltr'],
    ['ru', 'ltr'],
    ['zh', 'ltr'],
  ] as const)('%s lays out %s, with <html lang dir> set', (language, dir) => {
    const { root } = renderApp({ language });
    expect(root.getAttribute('dir')).toBe(dir);
    expect(root.getAttribute('lang')).toBe(language);
  });

  it('speaks Persian when Persian is chosen: the list, the Auto button, the badges', () => {
    renderApp({ language: 'fa' });
    expect(screen.getByRole('button', { name: /^خودکار \(Provider A\)/ })).toBeTruthy();
    expect(screen.getAllByText('از حافظهٔ نهان').length).toBeGreaterThan(0);
    expect(screen.getAllByText('IP هنوز تأیید نشده').length).toBeGreaterThan(0);
    expect(screen.getByText('فعلاً قطع')).toBeTruthy();
    expect(screen.getByText('اینجا مسدود')).toBeTruthy();
  });

  it('follows a language change pushed by the host, switching direction', () => {
    const { root, client } = renderApp({ language: 'en' });
    act(() => client.emit('settings', { ...DEFAULT_SETTINGS, language: 'ar' }));
    expect(root.getAttribute('dir')).toBe('rtl');
    expect(screen.getAllByRole('button', { name: /^تلقائي \(/ })).toHaveLength(2);
  });

  it('turns right to left together with the words of a language it reads only when chosen', async () => {
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    const i18n = await createWindowI18n('en', async (language) => {
      await held;
      return loadCatalogue(language);
    });
    const root = document.createElement('html');
    const { client } = renderWithStore(<App root={root} />, { ...sampleSnapshot(NOW), demo: true, settings: DEFAULT_SETTINGS }, { i18n });
    act(() => client.emit('settings', { ...DEFAULT_SETTINGS, language: 'ar' }));
    // Not yet read: English, left to right (no English laid out right to left meanwhile).
    expect(root.getAttribute('dir')).toBe('ltr');
    expect(screen.getAllByRole('button', { name: /^Auto \(/ }).length).toBeGreaterThan(0);
    await act(async () => {
      release();
      await held;
    });
    await waitFor(() => expect(root.getAttribute('dir')).toBe('rtl'));
    expect(root.getAttribute('lang')).toBe('ar');
    expect(screen.getAllByRole('button', { name: /^تلقائي \(/ })).toHaveLength(2);
  });

  it('follows the system language when the setting is "system"', () => {
    const { root } = renderApp({ language: 'system' });
    expect(root.getAttribute('lang')).toBe('en'); // renderWithStore's systemLanguage is en-US
  });

  it.each([
    ['dark', 'dark'],
    ['light', 'light'],
    ['system', 'light'],
  ] as const)('theme %s draws %s', (theme, drawn) => {
    const { root } = renderApp({ theme });
    expect(root.dataset.theme).toBe(drawn);
  });

  it('shows the Lab panel only in demo mode', () => {
    renderApp({}, true);
    expect(screen.getByRole('region', { name: 'Lab' })).toBeTruthy();
    cleanup();
    renderApp({}, false);
    expect(screen.queryByRole('region', { name: 'Lab' })).toBeNull();
  });

  it('Lab: blackholes the current server and cuts the network through the host', async () => {
    const { client } = renderApp();
    const lab = screen.getByRole('region', { name: 'Lab' });
    await userEvent.click(within(lab).getByRole('button', { name: 'Blackhole the current server' }));
    await userEvent.click(within(lab).getByRole('button', { name: 'Cut the network' }));
    expect(client.callsTo('labControl')).toEqual([
      { action: 'fault', serverId: 'fi', fault: 'blackhole' },
      { action: 'network', state: 'offline' },
    ]);
    expect(within(lab).getByRole('button', { name: 'Restore the network' })).toBeTruthy();
  });

  it('shows the connection, the local proxy addresses and Disconnect', async () => {
    const { client } = renderApp();
    const bar = document.querySelector('.connection-bar') as HTMLElement;
    expect(bar.textContent).toContain('Connected');
    expect(bar.textContent).toContain('through Finland · Helsinki 1');
    // Each address: its kind, host:port and a copy button; the whole URL in the tooltip and on the clipboard.
    const fields = [...bar.querySelectorAll('.proxy-field')].map((field) => [field.textContent, field.getAttribute('title')]);
    expect(fields).toEqual([
      ['HTTP127.0.0.1:10809', 'HTTP proxy: http://127.0.0.1:10809'],
      ['SOCKS5127.0.0.1:10808', 'SOCKS5 proxy: socks5://127.0.0.1:10808'],
    ]);
    const user = userEvent.setup();
    await user.click(within(bar).getByRole('button', { name: 'Copy the SOCKS5 proxy address' }));
    expect(await navigator.clipboard.readText()).toBe('socks5://127.0.0.1:10808');
    expect(within(bar).getByText('Copied').getAttribute('role')).toBe('status');
    await userEvent.click(within(bar).getByRole('button', { name: 'Disconnect' }));
    expect(client.callsTo('disconnect')).toEqual([{}]);
    expect(within(bar).getByRole('button', { name: 'Connect' })).toBeTruthy();
  });

  it('the top bar says the mode, warns before system-wide mode asks for administrator rights, and opens Settings', async () => {
    const { client } = renderApp({ mode: 'system-wide' });
    const bar = document.querySelector('.connection-bar') as HTMLElement;
    const chip = within(bar).getByRole('button', { name: 'What Connect changes: System-wide (every app)' });
    expect(chip.textContent).toBe('System-wide');
    expect(bar.textContent).not.toContain('administrator rights');
    await userEvent.click(within(bar).getByRole('button', { name: 'Disconnect' }));
    expect(client.callsTo('disconnect')).toEqual([{}]);
    expect(bar.textContent).toContain('Connect will ask for administrator rights');
    await userEvent.click(chip);
    // Room on a busy machine for the dialogs' chunk, not a sleep.
    expect(await screen.findByRole('dialog', { name: 'Settings' }, { timeout: 10_000 })).toBeTruthy();
  });

  it('Test all shows its progress from the host’s events', async () => {
    const { client, frames } = renderApp();
    await userEvent.click(screen.getByRole('button', { name: 'Test all' }));
    act(() => {
      client.emit('testProgress', { running: true, done: 3, total: 9 });
      client.emit('testProgress', { running: true, done: 4, total: 9 });
      frames.next();
    });
    const bar = screen.getByRole('progressbar', { name: 'Test progress' });
    expect(bar.getAttribute('aria-valuenow')).toBe('4');
    expect(bar.getAttribute('aria-valuetext')).toBe('Testing 4 of 9');
  });

  it('shows the host’s errors as alerts that can be dismissed', async () => {
    const { client } = renderApp();
    client.failNext('testServer', 'the core is restarting');
    await userEvent.click(screen.getByRole('button', { name: 'Retest Japan · Tokyo' }));
    const alert = screen.getAllByRole('alert').find((el) => el.textContent?.includes('the core is restarting'))!;
    expect(alert.textContent).toContain('Could not test the server');
    await userEvent.click(within(alert).getByRole('button', { name: 'Dismiss' }));
    expect(alert.textContent).toBe('');
  });
});
