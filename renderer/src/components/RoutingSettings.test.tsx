import { act, cleanup, fireEvent, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { renderWithStore } from '../testing/render';
import { sampleSnapshot } from '../testing/sample-world';
import { ConnectionBar } from './ConnectionBar';
import { Dialogs } from './Dialogs';

vi.setConfig({ testTimeout: 20_000 });
afterEach(cleanup);

const NOW = Date.now();

function openRouting() {
  const rendered = renderWithStore(<Dialogs />, sampleSnapshot(NOW));
  act(() => rendered.store.getState().openDialog({ kind: 'settings' }));
  const dialog = screen.getByRole('dialog', { name: 'Settings' });
  fireEvent.click(within(dialog).getByRole('tab', { name: 'Routing' }));
  return { ...rendered, dialog, page: within(dialog).getByRole('tabpanel', { name: 'Routing' }) };
}

describe('the Routing page of Settings', () => {
  it('shows the preset with its data’s date, and sends rules in the order the user arranged them', async () => {
    const { page, client, dialog } = openRouting();
    expect(within(page).getByRole('combobox', { name: /^Region/ })).toHaveProperty('value', 'ir');
    expect(page.textContent).toContain('IP ranges of Jun 17, 2026 from \u2068@ip-location-db/geo-whois-asn-country');
    await userEvent.click(within(page).getByRole('button', { name: 'Add a rule' }));
    await userEvent.click(within(page).getByRole('button', { name: 'Add a rule' }));
    const first = within(page).getByRole('listitem', { name: 'Rule 1' });
    await userEvent.type(within(first).getByRole('textbox', { name: 'Addresses' }), '127.0.0.200/32');
    const second = within(page).getByRole('listitem', { name: 'Rule 2' });
    await userEvent.selectOptions(within(second).getByRole('combobox', { name: 'Send to' }), 'block');
    await userEvent.type(within(second).getByRole('textbox', { name: 'Sites' }), 'domain:ads.example');
    await userEvent.type(within(second).getByRole('textbox', { name: 'Ports' }), '80,443');
    await userEvent.click(within(page).getByRole('button', { name: 'Move rule 2 up' }));
    await userEvent.click(within(dialog).getByRole('button', { name: 'Save' }));
    const [patch] = client.callsTo('setSettings') as { routing: { rules: unknown[] } }[];
    expect(patch?.routing.rules).toEqual([
      { domain: ['domain:ads.example'], ip: [], port: '80,443', outbound: 'block' },
      { domain: [], ip: ['127.0.0.200/32'], outbound: 'direct' },
    ]);
  });

  it.each([
    ['fa', 'تنظیمات', 'مسیریابی', 'بازه‌های IP به تاریخ ۲۷ خرداد ۱۴۰۵ از \u2068@ip-location-db/geo-whois-asn-country', 'جدول میزبان‌ها'],
    ['ar', 'الإعدادات', 'التوجيه', 'نطاقات IP بتاريخ 17 يونيو 2026 من \u2068@ip-location-db/geo-whois-asn-country', 'جدول المضيفين'],
    ['zh', '设置', '路由', 'IP 段日期 2026年6月17日，来源 \u2068@ip-location-db/geo-whois-asn-country', '主机映射'],
  ] as const)('in %s, the data’s date in the language’s calendar and digits, its source isolated, and Hosts in its words', (language, settings, routing, dataLine, hosts) => {
    const rendered = renderWithStore(<Dialogs />, sampleSnapshot(NOW), { language });
    act(() => rendered.store.getState().openDialog({ kind: 'settings' }));
    const dialog = screen.getByRole('dialog', { name: settings });
    fireEvent.click(within(dialog).getByRole('tab', { name: routing }));
    const page = within(dialog).getByRole('tabpanel', { name: routing });
    expect(page.textContent).toContain(dataLine);
    expect(within(page).getByRole('textbox', { name: new RegExp(`^${hosts}`) })).toBeTruthy();
    expect(page.textContent).not.toContain('2026-06-17');
  });

  it('names an invalid entry at its rule and sends nothing', async () => {
    const { page, client, dialog } = openRouting();
    await userEvent.click(within(page).getByRole('button', { name: 'Add a rule' }));
    const rule = within(page).getByRole('listitem', { name: 'Rule 1' });
    await userEvent.type(within(rule).getByRole('textbox', { name: 'Addresses' }), '10.0.0/8');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Save' }));
    expect(client.callsTo('setSettings')).toEqual([]);
    expect(rule.getAttribute('aria-invalid')).toBe('true');
    expect(rule.textContent).toContain('\u206810.0.0/8\u2069 is not an IP address or CIDR block.');
  });

  it('a hosts line that is not “name address” is named by its line', async () => {
    const { page, client, dialog } = openRouting();
    await userEvent.type(within(page).getByRole('textbox', { name: /^Hosts/ }), 'bank.ir 10.0.0.5{enter}justaname');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Save' }));
    expect(client.callsTo('setSettings')).toEqual([]);
    expect(page.textContent).toContain('Line 2 needs a name and an address.');
  });
});

describe('the top bar', () => {
  it('names the preset in force and shows direct traffic apart from the server’s', () => {
    const { store } = renderWithStore(<ConnectionBar />, sampleSnapshot(NOW));
    expect(screen.getByText('Routing: Iran')).toBeTruthy();
    act(() => {
      for (let i = 1; i <= 3; i++) store.getState().pushTraffic({ at: NOW + i * 1000, intervalMs: 1000, upBytes: 0, downBytes: 0, direct: { upBytes: 2048, downBytes: 1024 * 1024 } });
    });
    const direct = screen.getByTitle('Traffic that went direct, not through the server');
    expect(direct.textContent).toMatch(/Direct.*2(\.0)? kB\/s.*1(\.0)? MB\/s/i);
  });
});
