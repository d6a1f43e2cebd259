import { act, cleanup, fireEvent, screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { renderWithStore } from '../testing/render';
import { sampleSnapshot } from '../testing/sample-world';
import { App } from './App';
// The window's dialogs are a chunk it reads after its first frame (App.tsx): here it is read
// before the tests, as it is in the window long before a click.
import './Dialogs';

vi.setConfig({ testTimeout: 20_000 });
afterEach(cleanup);

const NOW = Date.now();
/** The dialog once React has put it in (it waits for the dialogs' chunk): room on a busy machine, not a sleep. */
const openedSettings = () => screen.findByRole('dialog', { name: 'Settings' }, { timeout: 10_000 });

describe('the settings dialog’s pages', () => {
  it('has General, Connection, Start-up, Routing, Anti-censorship, Testing, Apps, Sharing and Cores as tabs', async () => {
    const { store } = renderWithStore(<App root={document.createElement('html')} />, sampleSnapshot(NOW));
    act(() => store.getState().openDialog({ kind: 'settings' }));
    const dialog = await openedSettings();
    expect(within(dialog).getAllByRole('tab').map((tab) => tab.textContent)).toEqual(['General', 'Connection', 'Start-up', 'Routing', 'Anti-censorship', 'Testing', 'Apps', 'Sharing', 'Cores']);
  });

  it('no page repeats a heading: no visible legend says its tab’s name or the name of the field right under it', async () => {
    const { store } = renderWithStore(<App root={document.createElement('html')} />, sampleSnapshot(NOW));
    act(() => store.getState().openDialog({ kind: 'settings' }));
    const dialog = await openedSettings();
    for (const tab of within(dialog).getAllByRole('tab')) {
      fireEvent.click(tab);
      const panel = dialog.querySelector(`#${tab.getAttribute('aria-controls')}`)!;
      for (const legend of panel.querySelectorAll('legend:not(.visually-hidden)')) {
        expect(legend.textContent, `${tab.textContent}: legend`).not.toBe(tab.textContent);
        const firstLabel = legend.parentElement?.querySelector('label > span')?.textContent;
        expect(legend.textContent, `${tab.textContent}: ${legend.textContent}`).not.toBe(firstLabel);
      }
    }
  });

  it('the mode chip opens Settings at the mode field, on the Connection page, focused', async () => {
    renderWithStore(<App root={document.createElement('html')} />, sampleSnapshot(NOW));
    fireEvent.click(document.querySelector('.mode-chip')!);
    const dialog = await openedSettings();
    expect(within(dialog).getByRole('tab', { name: 'Connection' }).getAttribute('aria-selected')).toBe('true');
    expect(document.activeElement).toBe(within(dialog).getByRole('combobox', { name: /What Connect changes/ }));
  });

  it('the gear opens it at General, on the language', async () => {
    renderWithStore(<App root={document.createElement('html')} />, sampleSnapshot(NOW));
    fireEvent.click(screen.getByRole('button', { name: 'Settings' }));
    const dialog = await openedSettings();
    expect(within(dialog).getByRole('tab', { name: 'General' }).getAttribute('aria-selected')).toBe('true');
    expect(document.activeElement).toBe(within(dialog).getByRole('combobox', { name: 'Language' }));
  });
});

describe('IPv6 in each connection mode, on the Connection page', () => {
  const modeNote = async (mode: string) => {
    const { store } = renderWithStore(<App root={document.createElement('html')} />, sampleSnapshot(NOW));
    act(() => store.getState().openDialog({ kind: 'settings', focus: 'mode' }));
    const dialog = await openedSettings();
    fireEvent.change(within(dialog).getByRole('combobox', { name: /What Connect changes/ }), { target: { value: mode } });
    return within(dialog).getByTestId('mode-ipv6').textContent;
  };

  it('the system proxy: apps using it do not show the user’s IPv6; apps ignoring it go around on IPv4 and IPv6', async () => {
    expect(await modeNote('system-proxy')).toMatch(/your own IPv6 address is not shown.*Apps that ignore the proxy go around the VPN on IPv4 and IPv6 alike/);
  });

  it('the local proxy says the same', async () => {
    expect(await modeNote('proxy')).toMatch(/Apps that ignore the proxy go around the VPN on IPv4 and IPv6 alike/);
  });

  it('system-wide: through the tunnel when the server carries IPv6, refused at once otherwise, never around', async () => {
    expect(await modeNote('system-wide')).toMatch(/goes through the tunnel when the server carries IPv6.*refused at once, so apps fall back to IPv4 through the tunnel\. It never goes around the VPN\./);
  });
});
