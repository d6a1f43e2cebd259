import { act, cleanup, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { DEFAULT_SETTINGS, type Language, LANGUAGES } from '../../../shared/settings';
import { resources } from '../i18n';
import { renderWithStore } from '../testing/render';
import { sampleSnapshot } from '../testing/sample-world';
import { Dialogs } from './Dialogs';
import { householdLink } from './SharingSettings';

vi.setConfig({ testTimeout: 20_000 });
afterEach(cleanup);

const NOW = Date.now();

async function openSharing(options: { language?: Language; sharing?: { enabled: boolean; address: string } } = {}) {
  const base = sampleSnapshot(NOW);
  const snapshot = { ...base, settings: { ...DEFAULT_SETTINGS, ...base.settings, sharing: options.sharing ?? DEFAULT_SETTINGS.sharing } };
  const rendered = renderWithStore(<Dialogs />, snapshot, { language: options.language ?? 'en' });
  act(() => rendered.store.getState().openDialog({ kind: 'settings' }));
  const dialog = screen.getByRole('dialog');
  const title = resources[options.language ?? 'en'].translation.sharing.page;
  await userEvent.click(within(dialog).getByRole('tab', { name: title }));
  const page = dialog.querySelector('#settings-page-sharing') as HTMLElement;
  return { ...rendered, dialog, page };
}

describe('Settings → Sharing', () => {
  it('warns, counts refused logins, and holds no credentials until Show', async () => {
    const { page, client } = await openSharing({ sharing: { enabled: true, address: '192.168.1.5' } });
    expect(within(page).getByRole('note').textContent).toMatch(/Every device on that network can try to use it/);
    expect(await within(page).findByText(/Refused logins since the app started: 3/)).toBeTruthy();
    expect(page.textContent).not.toContain('household-password-20');
    expect(client.callsTo('sharingCredentials')).toEqual([]);
    await userEvent.click(within(page).getByRole('button', { name: 'Show the username, password and QR code' }));
    expect(await within(page).findByText('household-password-20')).toBeTruthy();
    expect(within(page).getByText('homeAbCdEf')).toBeTruthy();
    expect(within(page).getByText('192.168.1.5:10808')).toBeTruthy();
    expect(within(page).getByRole('img', { name: /QR code of the shared SOCKS5 proxy/ }).innerHTML).toContain('<svg');
    expect(client.callsTo('sharingCredentials')).toEqual([{}]);
    // The focus stays in the dialog on the button that took the pressed one's place, so Escape still works.
    expect(document.activeElement).toBe(within(page).getByRole('button', { name: 'Hide' }));
    await userEvent.click(within(page).getByRole('button', { name: 'Hide' }));
    expect(page.textContent).not.toContain('household-password-20');
    expect(document.activeElement).toBe(within(page).getByRole('button', { name: 'Show the username, password and QR code' }));
  });

  it('turns sharing on for a chosen address: the block is saved whole', async () => {
    const { dialog, page, store } = await openSharing();
    await userEvent.click(within(page).getByRole('checkbox', { name: /Share the proxies with other devices/ }));
    const select = within(page).getByRole('combobox', { name: /Share on this address/ });
    await within(select).findByRole('option', { name: '192.168.1.5 (wlan0)' });
    await userEvent.selectOptions(select, '192.168.1.5');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Save' }));
    expect(store.getState().settings.sharing).toEqual({ enabled: true, address: '192.168.1.5' });
  });

  it('refuses to turn sharing on without an address, in words, on its page', async () => {
    const { dialog, page, store } = await openSharing();
    await userEvent.click(within(page).getByRole('checkbox', { name: /Share the proxies with other devices/ }));
    await userEvent.click(within(dialog).getByRole('button', { name: 'Save' }));
    expect(await within(page).findByText('Choose the address to share on.')).toBeTruthy();
    expect(store.getState().settings.sharing.enabled).toBe(false);
  });

  it('shows the machine’s address that is not private, with why, and never lets it be chosen', async () => {
    const { page } = await openSharing();
    const select = within(page).getByRole('combobox', { name: /Share on this address/ }) as HTMLSelectElement;
    const refused = await within(select).findByRole('option', { name: '100.64.12.9 (wwan0): not a private network address, cannot be shared on' });
    expect((refused as HTMLOptionElement).disabled).toBe(true);
    await userEvent.selectOptions(select, refused).catch(() => undefined);
    expect(select.value).toBe('');
  });

  it('shows an address the machine no longer has as such, kept', async () => {
    const { page } = await openSharing({ sharing: { enabled: true, address: '10.9.9.9' } });
    const select = within(page).getByRole('combobox', { name: /Share on this address/ }) as HTMLSelectElement;
    expect(select.value).toBe('10.9.9.9');
    expect(within(select).getByRole('option', { name: '10.9.9.9 (not on this computer now)' })).toBeTruthy();
  });

  it('speaks every language of the app', async () => {
    for (const language of LANGUAGES) {
      const { page, unmount } = await openSharing({ language });
      const words = resources[language].translation.sharing;
      expect(within(page).getByRole('note').textContent).toBe(words.warning);
      expect(within(page).getByText(words.section)).toBeTruthy();
      unmount();
    }
  });
});

describe('householdLink', () => {
  it('is the SOCKS5 proxy as a share link, IPv6 in brackets', () => {
    const credentials = { username: 'homeAbCdEf', password: 'abc123' };
    expect(householdLink('192.168.1.5', 10808, credentials, 'Steadfast at home')).toBe('socks5://homeAbCdEf:abc123@192.168.1.5:10808#Steadfast%20at%20home');
    expect(householdLink('fd00::7', 10808, credentials, 'x')).toBe('socks5://homeAbCdEf:abc123@[fd00::7]:10808#x');
  });
});
