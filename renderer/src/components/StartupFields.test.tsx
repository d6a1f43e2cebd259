import { act, cleanup, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { renderWithStore } from '../testing/render';
import { sampleSnapshot } from '../testing/sample-world';
import { Dialogs } from './Dialogs';

vi.setConfig({ testTimeout: 20_000 });
afterEach(cleanup);

describe('the settings dialog: start-up', () => {
  it('both are off by default; turned on, they are saved as settings', async () => {
    const { store, client } = renderWithStore(<Dialogs />, sampleSnapshot(Date.now()));
    act(() => store.getState().openDialog({ kind: 'settings' }));
    const dialog = screen.getByRole('dialog', { name: 'Settings' });
    await userEvent.click(within(dialog).getByRole('tab', { name: 'Start-up' }));
    const atLogin = within(dialog).getByRole('checkbox', { name: /Start when I log in/ }) as HTMLInputElement;
    const connect = within(dialog).getByRole('checkbox', { name: /Connect when the app starts/ }) as HTMLInputElement;
    expect([atLogin.checked, connect.checked]).toEqual([false, false]);
    await userEvent.click(atLogin);
    await userEvent.click(connect);
    await userEvent.click(within(dialog).getByRole('button', { name: 'Save' }));
    expect(client.callsTo('setSettings')).toEqual([{ startAtLogin: true, connectOnStart: true }]);
  });

  it('in a browser (no desktop app around it) says that the desktop app carries them out', () => {
    const { store } = renderWithStore(<Dialogs />, sampleSnapshot(Date.now()));
    act(() => store.getState().openDialog({ kind: 'settings' }));
    expect(screen.getByText('Starting at login is set up by the desktop app.')).toBeTruthy();
  });
});
