import { act, cleanup, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { CoreSummary } from '../../../shared/domain/connection';
import { DEFAULT_SETTINGS } from '../../../shared/settings';
import { renderWithStore } from '../testing/render';
import { sampleSnapshot } from '../testing/sample-world';
import { coreDraftOf, corePathOf } from './CoreSettings';
import { Dialogs } from './Dialogs';

vi.setConfig({ testTimeout: 20_000 });
afterEach(cleanup);

const NOW = Date.now();
const XRAY: CoreSummary = { family: 'xray', version: '26.3.27', path: '/opt/steadfast-vpn/resources/core/xray', antiDpi: { fragment: true, noise: true } };

async function openCores(options: { core?: CoreSummary; corePath?: string | null; language?: 'en' | 'fa' } = {}) {
  const base = sampleSnapshot(NOW);
  const snapshot = { ...base, core: options.core ?? XRAY, settings: { ...DEFAULT_SETTINGS, ...base.settings, corePath: options.corePath ?? null } };
  const rendered = renderWithStore(<Dialogs />, snapshot, { language: options.language ?? 'en' });
  act(() => rendered.store.getState().openDialog({ kind: 'settings' }));
  const dialog = screen.getByRole('dialog');
  await userEvent.click(within(dialog).getAllByRole('tab').at(-1)!);
  const page = within(dialog).getByRole('tabpanel');
  return { ...rendered, dialog, page };
}

const entry = (page: HTMLElement, name: string) => page.querySelector(`[data-core="${name}"]`) as HTMLElement;

describe('Settings → Cores', () => {
  it('lists every core as the host found it: the main core, sing-box beside it, the other available, each with its path and what it carries', async () => {
    const { page, client } = await openCores();
    expect(await within(page).findByText('Xray 26.3.27')).toBeTruthy();
    expect(client.callsTo('listCores')).toEqual([{}]);
    const xray = entry(page, 'xray');
    expect(xray.dataset.role).toBe('main');
    expect(within(xray).getByText('Main core')).toBeTruthy();
    expect(xray.textContent).toContain('/opt/steadfast-vpn/resources/core/xray (bundled with the app)');
    expect(xray.textContent).toContain('Carries 8 of your 9 servers.');
    expect(xray.textContent).toContain('vless');
    expect(within(entry(page, 'sing-box')).getByText('Carries what the main core cannot')).toBeTruthy();
    const v2ray = entry(page, 'v2ray');
    expect(v2ray.textContent).toContain('v2ray 4.34.0');
    expect(v2ray.textContent).toContain('Found, not in use');
    expect(v2ray.textContent).toContain('/usr/bin/v2ray (found on PATH)');
    // An available core carries nothing: no count is claimed for it.
    expect(v2ray.textContent).not.toContain('Carries');
    expect(within(page).getByText('1 of your 9 servers cannot be carried by any core here: their details say why.')).toBeTruthy();
  });

  it('chooses v2ray beside a bundled Xray by name, and Automatic again: the setting holds the name, or nothing', async () => {
    const { dialog, page, client, store } = await openCores();
    await within(page).findByText('Xray 26.3.27');
    const choice = within(page).getByRole('combobox', { name: /Main core/ });
    expect((choice as HTMLSelectElement).value).toBe('auto');
    // The version is isolated (FSI … PDI) so it keeps its order in a right-to-left sentence.
    expect(within(choice).getByRole('option', { name: '\u2068v2ray 4.34.0\u2069, found on PATH' })).toBeTruthy();
    expect(within(choice).getByRole('option', { name: '\u2068Xray 26.3.27\u2069, bundled with the app' })).toBeTruthy();
    await userEvent.selectOptions(choice, 'v2ray');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Save' }));
    expect(client.callsTo('setSettings')).toEqual([{ corePath: 'v2ray' }]);
    expect(store.getState().settings.corePath).toBe('v2ray');
  });

  it('a program by its path; from a chosen name back to Automatic', async () => {
    const first = await openCores();
    await userEvent.selectOptions(within(first.page).getByRole('combobox', { name: /Main core/ }), 'path');
    await userEvent.type(within(first.page).getByRole('textbox', { name: /Core path/ }), '  /opt/xray-next/xray ');
    await userEvent.click(within(first.dialog).getByRole('button', { name: 'Save' }));
    expect(first.client.callsTo('setSettings')).toEqual([{ corePath: '/opt/xray-next/xray' }]);
    cleanup();
    const second = await openCores({ corePath: 'v2ray' });
    const choice = within(second.page).getByRole('combobox', { name: /Main core/ }) as HTMLSelectElement;
    expect(choice.value).toBe('v2ray');
    await userEvent.selectOptions(choice, 'auto');
    await userEvent.click(within(second.dialog).getByRole('button', { name: 'Save' }));
    expect(second.client.callsTo('setSettings')).toEqual([{ corePath: null }]);
  });

  it('says when the cores cannot be listed, and when there is no main core', async () => {
    const snapshot = { ...sampleSnapshot(NOW), core: null };
    const rendered = renderWithStore(<Dialogs />, snapshot);
    rendered.client.failNext('listCores', 'the host went away');
    act(() => rendered.store.getState().openDialog({ kind: 'settings' }));
    await userEvent.click(within(screen.getByRole('dialog')).getByRole('tab', { name: 'Cores' }));
    expect((await screen.findByRole('alert')).textContent).toBe('The cores could not be listed: the host went away');
    await act(() => rendered.store.getState().loadCores());
    expect(screen.getByText('There is no main core, so nothing can connect. Install Xray or v2ray, or choose a core program above.')).toBeTruthy();
    expect(screen.getByText('No core found: neither xray nor v2ray is in PATH.')).toBeTruthy();
  });

  it('in Persian, right to left, with the versions and paths kept in their order', async () => {
    const { page } = await openCores({ language: 'fa' });
    const xray = await within(page).findByText('Xray 26.3.27');
    expect(xray.tagName).toBe('BDI');
    expect(within(entry(page, 'xray')).getByText('هستهٔ اصلی')).toBeTruthy();
    expect(entry(page, 'xray').textContent).toContain('۸ از ۹ سرور شما را اجرا می‌کند.');
    expect(entry(page, 'xray').querySelector('.core-path')?.getAttribute('dir')).toBe('ltr');
  });
});

describe('the core setting as the form holds it', () => {
  it.each([
    [null, 'auto', null],
    ['xray', 'xray', 'xray'],
    ['v2ray', 'v2ray', 'v2ray'],
    ['/opt/xray/xray', 'path', '/opt/xray/xray'],
  ] as const)('%s ↔ %s', (setting, choice, back) => {
    const draft = coreDraftOf(setting);
    expect(draft.coreChoice).toBe(choice);
    expect(corePathOf(draft)).toBe(back);
  });

  it('an empty path leaves the choice to the app', () => {
    expect(corePathOf({ coreChoice: 'path', corePath: '   ' })).toBeNull();
  });
});
