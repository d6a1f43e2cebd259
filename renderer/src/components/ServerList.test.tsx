import { cleanup, fireEvent, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { renderWithStore } from '../testing/render';
import { largeSnapshot, sampleSnapshot, status } from '../testing/sample-world';
import { ServerList } from './ServerList';
import { act } from 'react';

// jsdom role queries and typed input are slow on a busy machine: room to finish, not a sleep.
vi.setConfig({ testTimeout: 20_000 });

afterEach(cleanup);

const NOW = Date.now();

function row(name: RegExp | string): HTMLElement {
  const label = screen.getAllByRole('listitem').find((item) => item.querySelector('.server-name')?.textContent?.match(name));
  if (!label) throw new Error(`no row ${String(name)}`);
  return label;
}

describe('a server row', () => {
  it('shows the exit country as a flag named after the country, with its ISO code, and the exit IP', () => {
    renderWithStore(<ServerList />, sampleSnapshot(NOW));
    const fi = row(/Finland/);
    const flag = within(fi).getByRole('img', { name: 'Finland' });
    expect(flag.getAttribute('data-country')).toBe('FI');
    expect(fi.textContent).toContain('185.220.101.4');
    expect(fi.querySelector('.row-exit')?.getAttribute('title')).toBe('Helsinki, Uusimaa · AS24940 Hetzner Online GmbH');
  });

  it('names the country in the UI language', () => {
    renderWithStore(<ServerList />, sampleSnapshot(NOW), { language: 'ru' });
    const flag = screen.getAllByRole('img').find((img) => img.getAttribute('data-country') === 'FI');
    expect(flag?.getAttribute('aria-label')).toBe('Финляндия');
  });

  it('reads the ping as "63 ms", coloured by thresholds', () => {
    renderWithStore(<ServerList />, sampleSnapshot(NOW));
    const ping = within(row(/Finland/)).getByText('63 ms');
    expect(ping.className).toContain('good');
    expect(within(row(/Netherlands/)).getByText('182 ms').className).toContain('fair');
    expect(within(row(/Iran/)).getByText('512 ms').className).toContain('poor');
  });

  it('marks a cached result "from cache" and cached IP info "IP not yet confirmed", until fresh data replaces them', () => {
    const { client, frames } = renderWithStore(<ServerList />, sampleSnapshot(NOW));
    const nl = row(/Netherlands/);
    expect(within(nl).getByText('from cache')).toBeTruthy();
    expect(within(nl).getByText('IP not yet confirmed')).toBeTruthy();
    expect(within(row(/Finland/)).queryByText('from cache')).toBeNull();
    const fresh = client.snapshot.statuses.nl!;
    act(() => {
      client.emit('statuses', [{ ...fresh, fromCache: false, ipInfo: { ...fresh.ipInfo!, fromCache: false } }]);
      frames.next();
    });
    expect(within(row(/Netherlands/)).queryByText('from cache')).toBeNull();
    expect(within(row(/Netherlands/)).queryByText('IP not yet confirmed')).toBeNull();
  });

  it('says why the last test failed, and the reachability verdict', () => {
    renderWithStore(<ServerList />, sampleSnapshot(NOW));
    const de = row(/Germany/);
    expect(de.textContent).toContain('Failed: no answer in time');
    const verdict = within(de).getByText('blocked here');
    expect(verdict.getAttribute('title')?.replace(/[\u2068\u2069]/g, '')).toBe('Blocked here: reached through B1 · Stockholm and B2 · Warsaw, not from your network');
    expect(within(de).getByText('no answer')).toBeTruthy();
  });

  it('shows "down for now" during a staged test, then the late answer replaces it', () => {
    const { client, frames } = renderWithStore(<ServerList />, sampleSnapshot(NOW));
    expect(within(row(/United States/)).getByText('down for now')).toBeTruthy();
    act(() => client.emit('statuses', [status('us', { delayMs: 1480, testedAt: NOW })]));
    // Applied with the next frame, not later.
    expect(within(row(/United States/)).getByText('down for now')).toBeTruthy();
    act(() => void frames.next());
    expect(within(row(/United States/)).queryByText('down for now')).toBeNull();
    expect(within(row(/United States/)).getByText('1,480 ms')).toBeTruthy();
  });

  it('marks the current server and the excluded one, and says which servers the core cannot run', () => {
    renderWithStore(<ServerList />, sampleSnapshot(NOW));
    const fi = row(/Finland/);
    expect(fi.getAttribute('aria-current')).toBe('true');
    expect(within(fi).getByText('Connected')).toBeTruthy();
    expect(within(row(/Iran/)).getByText('Excluded from Auto')).toBeTruthy();
    expect(row(/Hysteria/).textContent).toContain('Not supported by v2ray 4.34.0: hysteria2 needs Xray or sing-box');
  });

  it('connects on click and on Enter', async () => {
    const { client } = renderWithStore(<ServerList />, sampleSnapshot(NOW));
    await userEvent.click(row(/Netherlands/));
    expect(client.callsTo('connect')).toEqual([{ serverId: 'nl' }]);
    row(/Japan/).focus();
    await userEvent.keyboard('{Enter}');
    expect(client.callsTo('connect').at(-1)).toEqual({ serverId: 'jp' });
  });

  it('retests from its own button without connecting, and opens the details', async () => {
    const { client, store } = renderWithStore(<ServerList />, sampleSnapshot(NOW));
    await userEvent.click(screen.getByRole('button', { name: 'Retest Japan · Tokyo' }));
    expect(client.callsTo('testServer')).toEqual([{ serverId: 'jp' }]);
    await userEvent.click(screen.getByRole('button', { name: 'Details of Japan · Tokyo' }));
    expect(store.getState().dialog).toEqual({ kind: 'server-details', serverId: 'jp' });
    expect(client.callsTo('connect')).toEqual([]);
  });

  it('moves focus between rows with the arrow keys', async () => {
    renderWithStore(<ServerList />, sampleSnapshot(NOW));
    row(/Finland/).focus();
    await userEvent.keyboard('{ArrowDown}');
    expect(document.activeElement).toBe(row(/Netherlands/));
    await userEvent.keyboard('{ArrowUp}');
    expect(document.activeElement).toBe(row(/Finland/));
  });
});

describe('the server list', () => {
  it('groups servers under their subscription headers, in list order', () => {
    renderWithStore(<ServerList />, sampleSnapshot(NOW));
    const headings = screen.getAllByRole('heading', { level: 2 }).map((h) => h.textContent);
    expect(headings).toEqual(['Provider A', 'Backup B']);
  });

  it('renders only what is on screen of 5,000 servers', () => {
    renderWithStore(<ServerList />, largeSnapshot(NOW, 5000));
    const rendered = document.querySelectorAll('.server-row').length;
    expect(rendered).toBeGreaterThan(5);
    expect(rendered).toBeLessThan(60);
    const canvas = screen.getByRole('list', { name: 'Servers' });
    expect(parseInt(canvas.style.blockSize, 10)).toBeGreaterThan(5000 * 50);
  });

  it('reorders subscriptions with the up/down buttons and by drag and drop', async () => {
    const { client } = renderWithStore(<ServerList />, sampleSnapshot(NOW));
    expect((screen.getByRole('button', { name: 'Move Provider A up' }) as HTMLButtonElement).disabled).toBe(true);
    await userEvent.click(screen.getByRole('button', { name: 'Move Provider A down' }));
    expect(client.callsTo('reorderSubscriptions')).toEqual([{ ids: ['B', 'A'] }]);
    expect(screen.getAllByRole('heading', { level: 2 }).map((h) => h.textContent)).toEqual(['Backup B', 'Provider A']);
    const data = new Map<string, string>();
    const dataTransfer = {
      setData: (k: string, v: string) => data.set(k, v),
      getData: (k: string) => data.get(k) ?? '',
      get types() {
        return [...data.keys()];
      },
      effectAllowed: 'all',
      dropEffect: 'none',
    };
    const handleOfA = screen.getByTitle('Drag to reorder Provider A');
    const headerOfB = screen.getByRole('region', { name: 'Backup B' });
    fireEvent.dragStart(handleOfA, { dataTransfer });
    fireEvent.dragOver(headerOfB, { dataTransfer });
    fireEvent.drop(headerOfB, { dataTransfer });
    expect(client.callsTo('reorderSubscriptions').at(-1)).toEqual({ ids: ['A', 'B'] });
  });

  it('shows usage, expiry, the last update error and every entry that could not be read', async () => {
    renderWithStore(<ServerList />, sampleSnapshot(NOW));
    const a = screen.getByRole('region', { name: 'Provider A' });
    expect(within(a).getByRole('meter', { name: 'Traffic used' }).getAttribute('aria-valuenow')).toBe('34');
    expect(a.textContent).toContain('33.5 GB of 100 GB used');
    expect(a.textContent).toMatch(/Expires /);
    await userEvent.click(within(a).getByText('2 entries could not be read'));
    expect(a.textContent).toContain('Line 14: unknown protocol "wireguard2"');
    expect(a.textContent).toContain('Line 22: port out of range');
    expect(screen.getByRole('region', { name: 'Backup B' }).textContent).toContain('The last update failed: HTTP 503 from the provider');
  });

  it.each([
    ['en', 'The last update failed: the provider’s name could not be resolved (DNS) on this network', 'Details'],
    ['fa', 'آخرین به‌روزرسانی ناموفق بود: نام ارائه‌دهنده در این شبکه (DNS) پیدا نشد', 'جزئیات'],
    ['ar', 'فشل آخر تحديث: تعذّر تحليل اسم المزوّد (DNS) على هذه الشبكة', 'التفاصيل'],
  ] as const)('%s: says why an update failed in the user’s language, the engine’s sentence kept as details', async (language, sentence, details) => {
    const snapshot = sampleSnapshot(NOW);
    const detail = 'Could not update: the name sub.example.com could not be resolved (DNS: ENOTFOUND). The previous 3 servers are kept.';
    snapshot.subscriptions[1] = { ...snapshot.subscriptions[1]!, lastError: detail, lastErrorKind: 'dns' };
    renderWithStore(<ServerList />, snapshot, { language });
    const note = screen.getByText(sentence).closest('[role="note"]') as HTMLElement;
    const more = note.querySelector('details')!;
    expect(more.querySelector('summary')!.textContent).toBe(details);
    expect(within(more).getByText(detail).tagName).toBe('BDI');
  });

  it('shows an empty update once, as the question it is, not also as a failure', () => {
    const snapshot = sampleSnapshot(NOW);
    snapshot.subscriptions[1] = { ...snapshot.subscriptions[1]!, pendingEmpty: true, lastError: 'The provider now lists no servers.', lastErrorKind: null };
    renderWithStore(<ServerList />, snapshot);
    const b = screen.getByRole('region', { name: 'Backup B' });
    expect(b.textContent).toContain('The last update returned an empty list.');
    expect(b.textContent).not.toContain('The last update failed');
  });

  it.each([
    ['en', 'From your provider: Лимит устройств достигнут — удалите старое устройство'],
    ['fa', 'پیام ارائه‌دهنده: Лимит устройств достигнут — удалите старое устройство'],
  ] as const)('%s: shows the provider’s announcement in its own words under the subscription', (language, text) => {
    const snapshot = sampleSnapshot(NOW);
    snapshot.subscriptions[0] = { ...snapshot.subscriptions[0]!, announce: 'Лимит устройств достигнут — удалите старое устройство' };
    renderWithStore(<ServerList />, snapshot, { language });
    const note = screen.getByText(text);
    expect(note.getAttribute('role')).toBe('note');
    expect(note.getAttribute('dir')).toBe('auto');
    expect(screen.getByRole('region', { name: 'Backup B' }).textContent).not.toContain('Лимит');
  });

  it('asks before replacing servers with an empty update', async () => {
    const snapshot = sampleSnapshot(NOW);
    snapshot.subscriptions[1] = { ...snapshot.subscriptions[1]!, pendingEmpty: true };
    const { store } = renderWithStore(<ServerList />, snapshot);
    await userEvent.click(screen.getByRole('button', { name: 'Replace with the empty list…' }));
    expect(store.getState().dialog).toEqual({ kind: 'confirm-empty', subscriptionId: 'B' });
  });
});

describe('a server row and the transfer test', () => {
  function withTransfers(now: number) {
    const snapshot = sampleSnapshot(now);
    const transfer = { at: now - 30_000, expectedBytes: 65_536, fragment: false, fromCache: false };
    snapshot.statuses.fi = { ...snapshot.statuses.fi!, transfer: { ...transfer, verdict: 'freezes', bytes: 16_000, bytesPerSecond: 400_000, detail: '16000 of 65536 bytes, then nothing for 2 s' } };
    snapshot.statuses.jp = { ...snapshot.statuses.jp!, transfer: { ...transfer, verdict: 'throttled', bytes: 65_536, bytesPerSecond: 12_000, detail: '65536 bytes in 5461 ms' } };
    snapshot.statuses.ir = { ...snapshot.statuses.ir!, transfer: { ...transfer, verdict: 'ok', bytes: 65_536, bytesPerSecond: 2e6, detail: '65536 bytes in 33 ms' } };
    return snapshot;
  }

  it('says a server that answers pings but stalls, and a slow one, with the time of the test; a passing test says nothing', () => {
    renderWithStore(<ServerList />, withTransfers(NOW));
    const fi = row(/Finland/).querySelector('.row-note') as HTMLElement;
    expect(fi.textContent).toMatch(/^answers pings but stalls after 16 kB \(tested .+\)$/);
    expect(fi.className).toContain('bad');
    expect(fi.getAttribute('title')).toBe('16000 of 65536 bytes, then nothing for 2 s');
    expect(within(row(/Finland/)).getByText('63 ms')).toBeTruthy();
    expect(row(/Japan/).querySelector('.row-note')?.textContent).toMatch(/^slow: 12 kB\/s \(tested .+\)$/);
    expect(row(/Iran/).querySelector('.row-note')?.textContent).toBe('');
  });

  it('says it in the user’s language', () => {
    renderWithStore(<ServerList />, withTransfers(NOW), { language: 'fa' });
    expect(row(/Finland/).querySelector('.row-note')?.textContent).toContain('به پینگ پاسخ می‌دهد اما پس از');
  });
});
