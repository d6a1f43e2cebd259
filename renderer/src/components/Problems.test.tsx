import { act, cleanup, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { AppProblem } from '../../../shared/domain/problem';
import type { Language } from '../../../shared/settings';
import { renderWithStore } from '../testing/render';
import { sampleSnapshot } from '../testing/sample-world';
import { App } from './App';
import { Problems } from './Problems';

vi.setConfig({ testTimeout: 20_000 });
afterEach(cleanup);

const NOW = Date.now();

const unreadable: AppProblem = {
  id: 'p1',
  at: NOW - 60_000,
  severity: 'warning',
  topic: { kind: 'file-unreadable', file: 'settings.json', recovered: 'backup' },
  detail: 'settings.json was unreadable; it was set aside and the last good copy is used.',
};
const diskFull: AppProblem = {
  id: 'p2',
  at: NOW - 30_000,
  severity: 'error',
  topic: { kind: 'save-failed', file: 'cache.json' },
  detail: 'Could not save cache.json (ENOSPC: no space left on device).',
};

const UNREADABLE_SENTENCE = '\u2068settings.json\u2069 could not be read. The app uses its last good copy; the damaged file was kept beside it.';
const DISK_FULL_SENTENCE = '\u2068cache.json\u2069 could not be saved. The app keeps working with what it has in memory; free some disk space or check the folder’s permissions.';

function renderProblems(problems: AppProblem[], language: Language = 'en') {
  return renderWithStore(<Problems />, { ...sampleSnapshot(NOW), problems }, { language });
}

const items = () => within(screen.getByRole('region', { name: 'The app needs your attention' })).getAllByRole('listitem');

describe('the problems the app reports', () => {
  it('shows nothing while there is no problem', () => {
    renderProblems([]);
    expect(screen.queryByRole('region')).toBeNull();
  });

  it('shows the snapshot’s problems under a heading, errors first, each with its severity, message and time', () => {
    renderProblems([unreadable, diskFull]);
    expect(screen.getByRole('heading', { name: 'The app needs your attention' })).toBeTruthy();
    const [first, second] = items();
    expect(first!.textContent).toContain('Problem');
    expect(first!.textContent).toContain(diskFull.detail);
    expect(second!.textContent).toContain('Warning');
    expect(second!.textContent).toContain(unreadable.detail);
    const time = first!.querySelector('time')!;
    expect(time.getAttribute('datetime')).toBe(new Date(diskFull.at).toISOString());
    expect(time.textContent).toMatch(/\d{1,2}:\d{2}:\d{2}/);
  });

  it('announces an error at once (alert) and a warning politely (status)', () => {
    renderProblems([unreadable, diskFull]);
    expect(screen.getByRole('alert').textContent).toContain(diskFull.detail);
    expect(screen.getByRole('status').textContent).toContain(unreadable.detail);
  });

  it('shows the date too for a problem from another day', () => {
    renderProblems([{ ...unreadable, at: NOW - 3 * 86_400_000 }]);
    const time = items()[0]!.querySelector('time')!;
    expect(time.textContent).toBe(time.getAttribute('title'));
    expect(time.textContent).toMatch(/\d{4}/);
  });

  it('replaces the list with each problems event', () => {
    const { client } = renderProblems([unreadable]);
    act(() => client.emit('problems', [unreadable, diskFull]));
    expect(items()).toHaveLength(2);
    act(() => client.emit('problems', [diskFull]));
    expect(items().map((item) => item.textContent)).toEqual([expect.stringContaining(diskFull.detail)]);
    act(() => client.emit('problems', []));
    expect(screen.queryByRole('region')).toBeNull();
  });

  it('dismiss asks the host with the problem’s id; the problem leaves with the host’s list', async () => {
    const { client } = renderProblems([unreadable, diskFull]);
    const warning = items()[1]!;
    await userEvent.click(within(warning).getByRole('button', { name: 'Dismiss' }));
    expect(client.callsTo('dismissProblem')).toEqual([{ id: 'p1' }]);
    expect(items()).toHaveLength(1);
    expect(screen.queryByText(unreadable.detail)).toBeNull();
  });

  it('keeps the problem while the host still lists it', async () => {
    const { client } = renderProblems([unreadable]);
    client.dismissProblem = async () => null; // answered; its new list not sent yet
    await userEvent.click(screen.getByRole('button', { name: 'Dismiss' }));
    expect(screen.getByText(unreadable.detail)).toBeTruthy();
    act(() => client.emit('problems', []));
    expect(screen.queryByText(unreadable.detail)).toBeNull();
  });

  it('each dismiss button is reached by Tab, named, and described by its message; Enter dismisses and the focus moves to the next', async () => {
    const { client } = renderProblems([unreadable, diskFull]);
    // The first problem's details open from its summary; its dismiss button comes next.
    await userEvent.tab();
    expect((document.activeElement as HTMLElement).tagName).toBe('SUMMARY');
    await userEvent.tab();
    const focused = document.activeElement as HTMLElement;
    expect(focused).toBe(screen.getByRole('button', { name: 'Dismiss', description: DISK_FULL_SENTENCE }));
    expect(screen.getByRole('button', { name: 'Dismiss', description: UNREADABLE_SENTENCE })).toBeTruthy();
    await userEvent.keyboard('{Enter}');
    expect(client.callsTo('dismissProblem')).toEqual([{ id: 'p2' }]);
    expect(document.activeElement).toBe(screen.getByRole('button', { name: 'Dismiss', description: UNREADABLE_SENTENCE }));
    await userEvent.keyboard(' ');
    expect(client.callsTo('dismissProblem')).toEqual([{ id: 'p2' }, { id: 'p1' }]);
    expect(screen.queryByRole('region')).toBeNull();
  });

  it.each([
    ['fa', 'برنامه به توجه شما نیاز دارد', 'هشدار', 'بستن'],
    ['ar', 'يحتاج التطبيق إلى انتباهك', 'تحذير', 'إخفاء'],
    ['ru', 'Приложению нужно ваше внимание', 'Предупреждение', 'Скрыть'],
    ['zh', '应用需要你的注意', '警告', '关闭'],
  ] as const)('%s: the surrounding words are translated, the engine’s English is isolated', (language, heading, severity, dismiss) => {
    renderProblems([unreadable], language);
    const region = screen.getByRole('region', { name: heading });
    expect(region.textContent).toContain(severity);
    expect(within(region).getByRole('button', { name: dismiss })).toBeTruthy();
    const message = within(region).getByText(unreadable.detail);
    expect(message.tagName).toBe('BDI');
  });

  it.each([
    ['en', '\u2068settings.json\u2069 could not be read. The app uses its last good copy; the damaged file was kept beside it.', 'Details'],
    ['fa', '\u2068settings.json\u2069 خوانده نشد. برنامه از آخرین نسخهٔ سالم استفاده می‌کند؛ فایل خراب در کنار آن نگه داشته شد.', 'جزئیات'],
    ['ru', 'Не удалось прочитать \u2068settings.json\u2069. Приложение использует последнюю исправную копию; повреждённый файл сохранён рядом.', 'Подробности'],
  ] as const)('%s: a problem the engine named is said in the user’s language, the engine’s sentence kept as its details', (language, sentence, details) => {
    renderProblems([{ ...unreadable, topic: { kind: 'file-unreadable', file: 'settings.json', recovered: 'backup' } }], language);
    const [item] = screen.getAllByRole('listitem');
    if (!item) throw new Error('no problem shown');
    expect(within(item).getByText(sentence)).toBeTruthy();
    const more = item.querySelector('details')!;
    expect(more.querySelector('summary')!.textContent).toBe(details);
    expect(within(more).getByText(unreadable.detail).tagName).toBe('BDI');
    expect(within(item).getByRole('button').getAttribute('aria-describedby')).toBe(within(item).getByText(sentence).id);
  });

  it('says what a failed save, a missing core and a system-wide capture not in force mean for the user', () => {
    renderProblems([
      { ...diskFull, topic: { kind: 'save-failed', file: 'cache.json' } },
      { id: 'p3', at: NOW, severity: 'warning', detail: 'no core found: v2ray or xray is not on PATH', topic: { kind: 'no-core' } },
      { id: 'p4', at: NOW, severity: 'error', detail: 'the capture helper could not start: pkexec was dismissed', topic: { kind: 'system-wide' } },
    ]);
    const text = items().map((item) => item.querySelector('.problem-message')!.textContent);
    // Errors first, the newest first among them.
    expect(text).toEqual([
      'System-wide mode is not in force, so apps that ignore the proxy settings go around the VPN. Try connecting again, or switch to the system proxy in Settings.',
      '\u2068cache.json\u2069 could not be saved. The app keeps working with what it has in memory; free some disk space or check the folder’s permissions.',
      'No usable core (v2ray or Xray) was found, so nothing can connect. Install one or set its path in Settings.',
    ]);
  });

  it.each([
    ['en', 'Testing used its daily traffic budget of 100 MB'],
    ['ru', 'Проверки израсходовали дневной лимит трафика (100 МБ)'],
    ['fa', 'آزمون‌ها سهمیهٔ روزانهٔ ترافیک'],
    ['ar', 'استهلكت الاختبارات حصتها اليومية'],
    ['zh', '测试已用完每日流量预算'],
  ] as const)('%s: a spent test budget is said with its size', (language, start) => {
    renderProblems([{ id: 'p5', at: NOW, severity: 'warning', detail: 'Testing used its daily budget of 100.0 MB', topic: { kind: 'test-budget', capBytesPerDay: 100e6 } }], language);
    const sentence = screen.getAllByRole('listitem')[0]!.querySelector('.problem-message')!.textContent!;
    expect(sentence.startsWith(start)).toBe(true);
    expect(sentence).not.toContain('{{');
  });

  it('stands between the top bar and the server list in the window', () => {
    const root = document.createElement('html');
    const { container } = renderWithStore(<App root={root} />, { ...sampleSnapshot(NOW), problems: [diskFull] });
    const region = screen.getByRole('region', { name: 'The app needs your attention' });
    const banner = container.querySelector('.topbar')!;
    const main = screen.getByRole('main');
    expect(banner.compareDocumentPosition(region) & Node.DOCUMENT_POSITION_FOLLOWING).toBeTruthy();
    expect(region.compareDocumentPosition(main) & Node.DOCUMENT_POSITION_FOLLOWING).toBeTruthy();
  });
});
