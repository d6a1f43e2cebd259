import { act, cleanup, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { DEFAULT_SETTINGS } from '../../../shared/settings';
import { renderWithStore } from '../testing/render';
import { sampleSnapshot } from '../testing/sample-world';
import { Dialogs } from './Dialogs';
import { capBytesOf, testingDraftOf } from './TestingSettings';

vi.setConfig({ testTimeout: 20_000 });
afterEach(cleanup);

const NOW = Date.now();

async function openTesting(capBytesPerDay = 0, language: 'en' | 'fa' | 'ru' | 'ar' | 'zh' = 'en', tabName = 'Testing') {
  const base = sampleSnapshot(NOW);
  const snapshot = { ...base, settings: { ...DEFAULT_SETTINGS, ...base.settings, monitor: { ...DEFAULT_SETTINGS.monitor, testBudgetBytesPerDay: capBytesPerDay } } };
  const rendered = renderWithStore(<Dialogs />, snapshot, { language });
  act(() => rendered.store.getState().openDialog({ kind: 'settings' }));
  const dialog = screen.getByRole('dialog');
  await userEvent.click(within(dialog).getByRole('tab', { name: tabName }));
  const page = within(dialog).getByRole('tabpanel');
  return { ...rendered, dialog, page };
}

describe('Settings → Testing', () => {
  it('shows what testing used in the last hour and the last day, by kind and in total', async () => {
    const { page, client } = await openTesting();
    const table = await within(page).findByRole('table', { name: 'Traffic used by testing' });
    expect(client.callsTo('testTraffic')).toEqual([{}]);
    const rows = within(table).getAllByRole('row').map((row) => [...row.children].map((cell) => cell.textContent));
    expect(rows).toEqual([
      ['Test', 'Last hour', 'Last 24 hours'],
      ['Delay probes', '1.6 MB', '35 MB'],
      ['Transfer tests', '4.7 MB', '111 MB'],
      ['Exit IP lookups', '12 kB', '160 kB'],
      ['Reachability checks', '0 kB', '38 kB'],
      ['Speed tests', '0 kB', '0 kB'],
      ['Total', '6.3 MB', '146 MB'],
    ]);
    expect(within(page).queryByRole('status')).toBeNull();
  });

  it('saves a daily cap in MB', async () => {
    const { dialog, page, client } = await openTesting();
    const cap = within(page).getByRole('textbox', { name: /Daily cap for testing/ });
    await userEvent.type(cap, '100');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Save' }));
    expect(client.callsTo('setSettings')).toEqual([{ monitor: { testBudgetBytesPerDay: 100_000_000 } }]);
  });

  it('says when the cap is reached', async () => {
    const { page } = await openTesting(100_000_000);
    expect((await within(page).findByRole('status')).textContent).toMatch(/daily cap is reached: only the current server and Auto's next candidates are pinged/);
    expect((within(page).getByRole('textbox', { name: /Daily cap/ }) as HTMLInputElement).value).toBe('100');
  });

  it('refuses a cap that is not a number, on its own page, and sends nothing', async () => {
    const { dialog, page, client } = await openTesting();
    await userEvent.type(within(page).getByRole('textbox', { name: /Daily cap/ }), 'lots');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Save' }));
    expect(client.callsTo('setSettings')).toEqual([]);
    expect(within(dialog).getByRole('tab', { name: 'Testing' }).getAttribute('aria-selected')).toBe('true');
    expect((within(dialog).getByRole('textbox', { name: /Daily cap/ }) as HTMLInputElement).getAttribute('aria-invalid')).toBe('true');
  });

  it.each([
    ['ru', 'Проверки', 'Трафик проверок'],
    ['fa', 'آزمون‌ها', 'ترافیک مصرف‌شده برای آزمون'],
    ['ar', 'الاختبارات', 'حركة البيانات التي استهلكتها الاختبارات'],
    ['zh', '测试', '测试使用的流量'],
  ] as const)('%s: the page speaks the user’s language', async (language, tab, caption) => {
    const { page } = await openTesting(0, language, tab);
    expect(await within(page).findByRole('table', { name: caption })).toBeTruthy();
  });

  it.each([
    ['', 0],
    ['0', 0],
    ['100', 100_000_000],
    ['2,5', 2_500_000],
    ['-1', null],
    ['x', null],
  ] as const)('the cap %j is %s bytes', (text, bytes) => {
    expect(capBytesOf({ testBudgetMb: text })).toBe(bytes);
  });

  it('shows no cap as an empty field, a cap in MB', () => {
    expect(testingDraftOf(0)).toEqual({ testBudgetMb: '' });
    expect(testingDraftOf(2_500_000)).toEqual({ testBudgetMb: '2.5' });
  });
});
