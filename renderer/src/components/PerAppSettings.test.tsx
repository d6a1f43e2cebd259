import { act, cleanup, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { PerAppSettings } from '../../../shared/per-app';
import { DEFAULT_SETTINGS, type Language, LANGUAGES } from '../../../shared/settings';
import { resources } from '../i18n';
import { renderWithStore } from '../testing/render';
import { sampleSnapshot } from '../testing/sample-world';
import { Dialogs } from './Dialogs';

vi.setConfig({ testTimeout: 20_000 });
afterEach(cleanup);

async function openApps(options: { language?: Language; perApp?: PerAppSettings; mode?: 'proxy' | 'system-wide' } = {}) {
  const base = sampleSnapshot(Date.now());
  const settings = { ...DEFAULT_SETTINGS, ...base.settings, mode: options.mode ?? 'system-wide', perApp: options.perApp ?? DEFAULT_SETTINGS.perApp };
  const rendered = renderWithStore(<Dialogs />, { ...base, settings }, { language: options.language ?? 'en' });
  act(() => rendered.store.getState().openDialog({ kind: 'settings' }));
  const dialog = screen.getByRole('dialog');
  await userEvent.click(within(dialog).getByRole('tab', { name: resources[options.language ?? 'en'].translation.perApp.page }));
  return { ...rendered, dialog, page: dialog.querySelector('#settings-page-apps') as HTMLElement };
}

describe('Settings → Apps', () => {
  it('picks an installed app (name and icon) and a path into the bypass list, and saves the block whole', async () => {
    const { dialog, page, store } = await openApps();
    await userEvent.selectOptions(within(page).getByRole('combobox', { name: /Per-app choice/ }), 'bypass');
    const add = await within(page).findByRole('button', { name: 'Add Firefox' });
    expect(add.querySelector('img')?.getAttribute('src')).toBe('data:image/png;base64,iVBORw==');
    await userEvent.click(add);
    await userEvent.click(within(page).getByRole('button', { name: 'Add discord' }));
    await userEvent.type(within(page).getByRole('textbox', { name: /An app by its path or name/ }), 'uid:1001');
    await userEvent.click(within(page).getByRole('button', { name: 'Add' }));
    const list = within(page).getByRole('list', { name: 'These apps bypass the VPN' });
    expect(within(list).getAllByRole('listitem').map((item) => item.querySelector('bdi')?.textContent)).toEqual(['/usr/bin/firefox', '/opt/discord/Discord', 'uid:1001']);
    await userEvent.click(within(dialog).getByRole('button', { name: 'Save' }));
    expect(store.getState().settings.perApp).toEqual({ mode: 'bypass', bypass: ['/usr/bin/firefox', '/opt/discord/Discord', 'uid:1001'], only: [] });
  });

  it('keeps an entry for an app that is not installed, and says so; the other list is kept too', async () => {
    const { page } = await openApps({ perApp: { mode: 'only', bypass: ['/usr/bin/steam'], only: ['/opt/removed/app', '/opt/bank/bank'] } });
    const list = within(page).getByRole('list', { name: 'Only these apps use the VPN' });
    const removed = (await within(list).findByText('/opt/removed/app')).closest('li')!;
    await vi.waitFor(() => expect(removed.dataset.missing).toBe('yes'));
    expect(within(removed).getByText('not installed')).toBeTruthy();
    expect(within(list).getByText('Bank')).toBeTruthy();
    expect(list.textContent).not.toContain('/usr/bin/steam');
  });

  it('says so where the search matches none of a list’s apps, instead of showing an empty list', async () => {
    const { page } = await openApps({ perApp: { mode: 'bypass', bypass: [], only: [] } });
    await within(page).findByRole('button', { name: 'Add Firefox' });
    await userEvent.type(within(page).getByRole('searchbox', { name: 'Find an app' }), 'nothing-like-it');
    expect(within(page).getAllByText('No app here matches “nothing-like-it”.')).toHaveLength(2);
    expect(within(page).queryByRole('button', { name: 'Add Firefox' })).toBeNull();
  });

  it('refuses a path that names no app, in words', async () => {
    const { page } = await openApps({ perApp: { mode: 'bypass', bypass: [], only: [] } });
    await userEvent.type(within(page).getByRole('textbox', { name: /An app by its path or name/ }), 'bin/app');
    await userEvent.click(within(page).getByRole('button', { name: 'Add' }));
    expect(within(page).getByText('Enter a full path, a program name or uid:N.')).toBeTruthy();
  });

  it('says the choice is for system-wide mode, in every language of the app', async () => {
    for (const language of LANGUAGES) {
      const { page, unmount } = await openApps({ language, mode: 'proxy' });
      const words = resources[language].translation.perApp;
      expect(within(page).getByRole('note').textContent).toBe(words.systemWideOnly);
      expect(within(page).getByText(words.section)).toBeTruthy();
      unmount();
    }
  });
});
