import { act, cleanup, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { renderWithStore } from '../testing/render';
import { sampleSnapshot } from '../testing/sample-world';
import { Dialogs } from './Dialogs';
import { SubscriptionHeader } from './SubscriptionHeader';

// jsdom role queries and typed input are slow on a busy machine: room to finish, not a sleep.
vi.setConfig({ testTimeout: 20_000 });

afterEach(cleanup);

const NOW = Date.now();

describe('the settings dialog', () => {
  it('validates before sending: a bad number and a bad URL are shown at their fields and nothing is sent', async () => {
    const { store, client } = renderWithStore(<Dialogs />, sampleSnapshot(NOW));
    act(() => store.getState().openDialog({ kind: 'settings' }));
    const dialog = screen.getByRole('dialog', { name: 'Settings' });
    const workers = within(dialog).getByRole('spinbutton', { name: 'Tests at a time' });
    await userEvent.clear(workers);
    await userEvent.type(workers, '0');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Save' }));
    expect(client.callsTo('setSettings')).toEqual([]);
    expect(workers.getAttribute('aria-invalid')).toBe('true');
    expect(within(dialog).getByRole('alert').textContent).toBe('Some values need fixing.');
    await userEvent.clear(workers);
    await userEvent.type(workers, 'many');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Save' }));
    expect(client.callsTo('setSettings')).toEqual([]);
    await userEvent.clear(workers);
    await userEvent.type(workers, '4');
    const urls = within(dialog).getByRole('textbox', { name: /Test URLs/ });
    await userEvent.clear(urls);
    await userEvent.type(urls, 'not a url');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Save' }));
    expect(client.callsTo('setSettings')).toEqual([]);
    expect(urls.getAttribute('aria-invalid')).toBe('true');
    expect(workers.getAttribute('aria-invalid')).toBe('false');
  });

  it('sends only what changed, in the settings’ units', async () => {
    const { store, client } = renderWithStore(<Dialogs />, sampleSnapshot(NOW));
    act(() => store.getState().openDialog({ kind: 'settings' }));
    const dialog = screen.getByRole('dialog', { name: 'Settings' });
    await userEvent.selectOptions(within(dialog).getByRole('combobox', { name: 'Language' }), 'fa');
    const interval = within(dialog).getByRole('spinbutton', { name: 'Test every (minutes)' });
    await userEvent.clear(interval);
    await userEvent.type(interval, '2');
    await userEvent.click(within(dialog).getByRole('tab', { name: 'Connection' }));
    const stall = within(dialog).getByRole('spinbutton', { name: /Stall threshold/ });
    await userEvent.clear(stall);
    await userEvent.type(stall, '8');
    await userEvent.selectOptions(within(dialog).getByRole('combobox', { name: /What Connect changes/ }), 'system-wide');
    expect(within(dialog).getByText(/administrator rights/)).toBeTruthy();
    await userEvent.click(within(dialog).getByRole('button', { name: 'Save' }));
    expect(client.callsTo('setSettings')).toEqual([{ language: 'fa', stallThresholdMs: 8000, mode: 'system-wide', monitor: { intervalMs: 120_000 } }]);
    expect(screen.queryByRole('dialog')).toBeNull();
    expect(store.getState().settings.language).toBe('fa');
  });

  it('shows the host’s refusal and stays open', async () => {
    const { store, client } = renderWithStore(<Dialogs />, sampleSnapshot(NOW));
    client.failNext('setSettings', 'core not found at /nope');
    act(() => store.getState().openDialog({ kind: 'settings' }));
    const dialog = screen.getByRole('dialog', { name: 'Settings' });
    await userEvent.click(within(dialog).getByRole('tab', { name: 'Cores' }));
    await userEvent.selectOptions(within(dialog).getByRole('combobox', { name: /Main core/ }), 'path');
    await userEvent.type(within(dialog).getByRole('textbox', { name: /Core path/ }), '/nope');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Save' }));
    expect(within(dialog).getByRole('alert').textContent).toBe('The app refused the settings: core not found at /nope');
  });
});

describe('the add-subscription dialog', () => {
  it('offers an address from the one box as an import request the user then confirms, and closes', async () => {
    const { store, client } = renderWithStore(<Dialogs />, sampleSnapshot(NOW));
    act(() => store.getState().openDialog({ kind: 'add-subscription' }));
    const dialog = screen.getByRole('dialog', { name: 'Add a subscription' });
    await userEvent.type(within(dialog).getByRole('textbox', { name: /^Address, links or subscription contents/ }), 'https://provider.example/s/abc');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Continue' }));
    expect(client.callsTo('offerImport')).toEqual([{ text: 'https://provider.example/s/abc', source: 'paste' }]);
    expect(client.callsTo('addSubscription')).toEqual([]);
    expect(screen.queryByRole('dialog', { name: 'Add a subscription' })).toBeNull();
    // The confirmation (ImportPrompt, beside the dialogs) asks about what now waits in the host's list.
    expect(store.getState().importRequests).toMatchObject([{ source: 'paste', target: { kind: 'subscription', url: 'https://provider.example/s/abc' } }]);
  });

  it('offers share links with a name, and refuses an empty box without asking the host', async () => {
    const { store, client } = renderWithStore(<Dialogs />, sampleSnapshot(NOW));
    act(() => store.getState().openDialog({ kind: 'add-subscription' }));
    const dialog = screen.getByRole('dialog', { name: 'Add a subscription' });
    await userEvent.click(within(dialog).getByRole('button', { name: 'Continue' }));
    expect(within(dialog).getByRole('alert').textContent).toBe('Paste the list first.');
    expect(client.callsTo('offerImport')).toEqual([]);
    await userEvent.type(within(dialog).getByRole('textbox', { name: /^Address, links or subscription contents/ }), 'vless://one');
    await userEvent.type(within(dialog).getByRole('textbox', { name: 'Name (optional)' }), 'Mine');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Continue' }));
    expect(client.callsTo('offerImport')).toEqual([{ text: 'vless://one', source: 'paste', name: 'Mine' }]);
  });

  it('asks for a User-Agent only for an address, and sends it with it', async () => {
    const { store, client } = renderWithStore(<Dialogs />, sampleSnapshot(NOW));
    act(() => store.getState().openDialog({ kind: 'add-subscription' }));
    const dialog = screen.getByRole('dialog', { name: 'Add a subscription' });
    const box = within(dialog).getByRole('textbox', { name: /^Address, links or subscription contents/ });
    await userEvent.type(box, 'vless://one');
    expect(within(dialog).queryByRole('textbox', { name: /User-Agent/ })).toBeNull();
    await userEvent.clear(box);
    await userEvent.type(box, 'https://provider.example/s/abc');
    await userEvent.type(within(dialog).getByRole('textbox', { name: /User-Agent/ }), 'clash-verge/v1.7.7');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Continue' }));
    expect(client.callsTo('offerImport')).toEqual([{ text: 'https://provider.example/s/abc', source: 'paste', userAgent: 'clash-verge/v1.7.7' }]);
  });

  it('says in the user’s words why the host could not read the box, and stays open', async () => {
    const { store, client } = renderWithStore(<Dialogs />, sampleSnapshot(NOW));
    client.failNext('offerImport', 'Nothing to add: it holds neither a share link, a subscription address, an import link nor a subscription’s contents.', 'nothing-to-import');
    act(() => store.getState().openDialog({ kind: 'add-subscription' }));
    const dialog = screen.getByRole('dialog', { name: 'Add a subscription' });
    await userEvent.type(within(dialog).getByRole('textbox', { name: /^Address, links or subscription contents/ }), 'hello');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Continue' }));
    expect(within(dialog).getByRole('alert').textContent).toMatch(/^Nothing here can be added/);
    expect(screen.getByRole('dialog', { name: 'Add a subscription' })).toBeTruthy();
  });
});

describe('the confirmations', () => {
  it('removes a subscription only after Remove; Cancel has the focus', async () => {
    const { store, client } = renderWithStore(<Dialogs />, sampleSnapshot(NOW));
    act(() => store.getState().openDialog({ kind: 'confirm-remove', subscriptionId: 'B' }));
    const dialog = screen.getByRole('dialog', { name: /^Remove \u2068Backup B\u2069\?$/ });
    expect(document.activeElement).toBe(within(dialog).getByRole('button', { name: 'Cancel' }));
    await userEvent.click(within(dialog).getByRole('button', { name: 'Remove' }));
    expect(client.callsTo('removeSubscription')).toEqual([{ id: 'B' }]);
  });

  it('replaces with the empty list only after Replace', async () => {
    const { store, client } = renderWithStore(<Dialogs />, sampleSnapshot(NOW));
    act(() => store.getState().openDialog({ kind: 'confirm-empty', subscriptionId: 'B' }));
    const dialog = screen.getByRole('dialog', { name: /^Replace \u2068Backup B\u2069 with an empty list\?$/ });
    await userEvent.click(within(dialog).getByRole('button', { name: 'Cancel' }));
    expect(client.callsTo('confirmEmptySubscription')).toEqual([]);
    act(() => store.getState().openDialog({ kind: 'confirm-empty', subscriptionId: 'B' }));
    await userEvent.click(within(screen.getByRole('dialog')).getByRole('button', { name: 'Replace' }));
    expect(client.callsTo('confirmEmptySubscription')).toEqual([{ id: 'B' }]);
  });
});

describe('the server details dialog', () => {
  it('says which core carries a server the main core cannot run, and why; a server the main core runs says nothing of it', () => {
    const note = 'carried by sing-box 1.14.1: not supported by Xray 26.3.27: TUIC needs sing-box (no v2ray or Xray version has TUIC)';
    const { store } = renderWithStore(<Dialogs />, { ...sampleSnapshot(NOW), carried: { de: note } });
    act(() => store.getState().openDialog({ kind: 'server-details', serverId: 'de' }));
    expect(screen.getByRole('dialog', { name: 'Germany · Frankfurt' }).textContent).toContain(note);
    act(() => store.getState().closeDialog());
    act(() => store.getState().openDialog({ kind: 'server-details', serverId: 'fi' }));
    expect(screen.getByRole('dialog').textContent).not.toContain('carried by');
  });

  it('shows statistics, exit IP info and the verdict with its vantage points; measures throughput on request', async () => {
    const { store, client } = renderWithStore(<Dialogs />, sampleSnapshot(NOW));
    act(() => store.getState().openDialog({ kind: 'server-details', serverId: 'de' }));
    const dialog = screen.getByRole('dialog', { name: 'Germany · Frankfurt' });
    expect(client.callsTo('getHistory')).toEqual([{ serverId: 'de' }]);
    expect(dialog.textContent).toContain('88.198.2.7');
    expect(within(dialog).getByRole('img', { name: 'Germany' }).getAttribute('data-country')).toBe('DE');
    expect(dialog.textContent).toContain('blocked here');
    expect(within(dialog).getByRole('list', { name: 'Seen from' }).textContent).toContain('B1 · Stockholm: reached it');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Measure speed' }));
    expect(client.callsTo('measureThroughput')).toEqual([{ serverId: 'de' }]);
    expect(dialog.textContent).toContain('3.4 MB/s');
  });

  it('shows one download speed, the newer measure, saying what was downloaded and when; the transfer test row carries no second speed', async () => {
    const base = sampleSnapshot(NOW);
    const transfer = { verdict: 'ok' as const, at: NOW - 120_000, bytes: 65_536, expectedBytes: 65_536, bytesPerSecond: 65_536_000, fragment: false, detail: '65536 bytes in 1 ms', fromCache: false };
    const { store } = renderWithStore(<Dialogs />, { ...base, statuses: { ...base.statuses, de: { ...base.statuses.de!, transfer, throughputBps: null } } });
    act(() => store.getState().openDialog({ kind: 'server-details', serverId: 'de' }));
    const dialog = screen.getByRole('dialog', { name: 'Germany · Frankfurt' });
    const speeds = () => (dialog.textContent ?? '').match(/[\d.,]+\s?[kMG]?B\/s/g) ?? [];
    const row = (label: string) => [...dialog.querySelectorAll('dt')].find((dt) => dt.textContent === label)?.nextElementSibling?.textContent ?? '';
    // Only the transfer test so far: its speed is the one shown, named as such, with its age.
    expect(speeds()).toEqual(['65.5 MB/s']);
    expect(row('Download speed')).toContain('65.5 MB/s (the 65.5 kB transfer test, 2 minutes ago)');
    expect(row('Transfer test')).toContain('came through');
    expect(row('Transfer test')).not.toContain('MB/s');
    // Measured on request now: the newer measure replaces it, still one speed.
    await userEvent.click(within(dialog).getByRole('button', { name: 'Measure speed' }));
    expect(speeds()).toEqual(['3.4 MB/s']);
    expect(row('Download speed')).toMatch(/^3\.4 MB\/s \(a 4\.2 MB download when asked, (now|.* ago)\)/);
  });

  it('a bulk speed test newer than the other measures is the one download speed; a failed one says so on its own row', async () => {
    const base = sampleSnapshot(NOW);
    const transfer = { verdict: 'ok' as const, at: NOW - 120_000, bytes: 65_536, expectedBytes: 65_536, bytesPerSecond: 65_536_000, fragment: false, detail: '65536 bytes in 1 ms', fromCache: false };
    const speedTest = { at: NOW - 60_000, bytes: 10_485_760, bytesPerSecond: 2_500_000, error: null, fromCache: false };
    const { store } = renderWithStore(<Dialogs />, { ...base, statuses: { ...base.statuses, de: { ...base.statuses.de!, transfer, throughputBps: null, speedTest } } });
    act(() => store.getState().openDialog({ kind: 'server-details', serverId: 'de' }));
    const dialog = screen.getByRole('dialog', { name: 'Germany · Frankfurt' });
    const speeds = () => (dialog.textContent ?? '').match(/[\d.,]+\s?[kMG]?B\/s/g) ?? [];
    const row = (label: string) => [...dialog.querySelectorAll('dt')].find((dt) => dt.textContent === label)?.nextElementSibling?.textContent ?? '';
    expect(speeds()).toEqual(['2.5 MB/s']);
    expect(row('Download speed')).toContain('2.5 MB/s (the 10.5 MB speed test, 1 minute ago)');
    act(() => store.setState({ statuses: { ...store.getState().statuses, de: { ...store.getState().statuses.de!, speedTest: { ...speedTest, bytesPerSecond: null, error: 'timeout' } } } }));
    expect(speeds()).toEqual(['65.5 MB/s']);
    expect([...dialog.querySelectorAll('dt')].map((dt) => dt.textContent)).toContain('Speed test');
  });

  it('tests the address straight on request: TCP shows its time, ICMP says in words why it cannot run here', async () => {
    const { store, client } = renderWithStore(<Dialogs />, sampleSnapshot(NOW));
    act(() => store.getState().openDialog({ kind: 'server-details', serverId: 'de' }));
    const dialog = screen.getByRole('dialog', { name: 'Germany · Frankfurt' });
    await userEvent.click(within(dialog).getByRole('button', { name: 'TCP ping' }));
    expect(client.callsTo('measureDirect')).toEqual([{ serverId: 'de', method: 'tcp' }]);
    // Beside its button the time stands alone ("TCP ping" once, not "TCP ping TCP ping: 41 ms"); a screen reader still hears the method.
    const tcp = dialog.querySelector('[data-direct="tcp"]')!;
    const status = within(tcp as HTMLElement).getByRole('status');
    expect(status.textContent).toBe('TCP ping: 41 ms');
    expect(status.querySelector('.visually-hidden')?.textContent).toBe('TCP ping: ');
    expect((tcp.textContent ?? '').split('TCP ping').length - 1).toBe(2);
    await userEvent.click(within(dialog).getByRole('button', { name: 'ICMP ping' }));
    expect(within(dialog).getByText('ICMP ping cannot run here: the system ping is not permitted to send ICMP here')).toBeTruthy();
    // The first result stays beside its button.
    expect(within(tcp as HTMLElement).getByRole('status').textContent).toBe('TCP ping: 41 ms');
  });

  it.each([
    ['de', 'refused (declared)', 'the subscription declares no IPv6 support (ipv6=0)', false],
    ['fi', 'supported (verified)', 'answered HTTP 204 via 2001:4860:4802:32::78 in 71 ms', false],
    ['nl', 'unknown (verified)', 'www.gstatic.com has no IPv6 address (AAAA)', true],
    ['ir', 'not checked', null, false],
  ] as const)('says whether IPv6 goes through %s and how that is known: %s', (serverId, shown, detail, fromCache) => {
    const { store } = renderWithStore(<Dialogs />, sampleSnapshot(NOW));
    act(() => store.getState().openDialog({ kind: 'server-details', serverId }));
    const dialog = screen.getByRole('dialog');
    const row = [...dialog.querySelectorAll('dt')].find((dt) => dt.textContent === 'IPv6')?.nextElementSibling;
    expect(row?.textContent).toContain(shown);
    if (detail) expect(row?.textContent).toContain(detail);
    expect(row?.textContent?.includes('from cache')).toBe(fromCache);
  });

  it('Share opens from the details, and its Close goes back to the details, not to the list', async () => {
    const { store } = renderWithStore(<Dialogs />, sampleSnapshot(NOW));
    act(() => store.getState().openDialog({ kind: 'server-details', serverId: 'de' }));
    await userEvent.click(within(screen.getByRole('dialog')).getByRole('button', { name: 'Share…' }));
    expect(store.getState().dialog.kind).toBe('share');
    await userEvent.click(within(screen.getByRole('dialog')).getByRole('button', { name: 'Close' }));
    expect(store.getState().dialog).toEqual({ kind: 'server-details', serverId: 'de' });
    expect(screen.getByRole('dialog', { name: 'Germany · Frankfurt' })).toBeTruthy();
  });

  it('lines the IPv6 row up with the exit\'s other rows: one list, one column of labels', () => {
    const { store } = renderWithStore(<Dialogs />, sampleSnapshot(NOW));
    act(() => store.getState().openDialog({ kind: 'server-details', serverId: 'de' }));
    const labels = [...screen.getByRole('dialog').querySelectorAll('dt')];
    const ipv6 = labels.find((dt) => dt.textContent === 'IPv6');
    const ip = labels.find((dt) => dt.textContent === 'IP address');
    expect(ipv6?.parentElement).toBe(ip?.parentElement);
    expect(ipv6?.parentElement?.lastElementChild?.previousElementSibling).toBe(ipv6);
  });

  it('shows the IPv6 line in the user\'s language (Persian)', () => {
    const { store } = renderWithStore(<Dialogs />, sampleSnapshot(NOW), { language: 'fa' });
    act(() => store.getState().openDialog({ kind: 'server-details', serverId: 'de' }));
    const row = [...screen.getByRole('dialog').querySelectorAll('dt')].find((dt) => dt.textContent === 'IPv6')?.nextElementSibling;
    expect(row?.textContent).toContain('رد می‌شود (اعلام‌شده)');
  });
});

describe('the settings dialog: IPv6 checks', () => {
  it('turns verify_ipv6 on as a monitor setting', async () => {
    const { store, client } = renderWithStore(<Dialogs />, sampleSnapshot(NOW));
    act(() => store.getState().openDialog({ kind: 'settings' }));
    const dialog = screen.getByRole('dialog', { name: 'Settings' });
    const box = within(dialog).getByRole('checkbox', { name: /Check IPv6 through each server/ });
    expect((box as HTMLInputElement).checked).toBe(false);
    await userEvent.click(box);
    await userEvent.click(within(dialog).getByRole('button', { name: 'Save' }));
    expect(client.callsTo('setSettings')).toEqual([{ monitor: { verifyIpv6: true } }]);
  });
});

describe('the server details and the transfer test', () => {
  it('says the server answers pings but stalls, with the bytes, the time and what the test saw', () => {
    const snapshot = sampleSnapshot(NOW);
    snapshot.statuses.fi = {
      ...snapshot.statuses.fi!,
      transfer: { verdict: 'freezes', at: NOW - 30_000, bytes: 16_000, expectedBytes: 65_536, bytesPerSecond: 400_000, fragment: true, detail: '16000 of 65536 bytes, then nothing for 2 s', fromCache: false },
    };
    const { store } = renderWithStore(<Dialogs />, snapshot);
    act(() => store.getState().openDialog({ kind: 'server-details', serverId: 'fi' }));
    const dialog = screen.getByRole('dialog');
    const warning = dialog.querySelector('.details-facts [data-transfer="freezes"]');
    expect(warning?.textContent).toMatch(/^answers pings but stalls after 16 kB \(tested .+ · TLS ClientHello fragment on\)$/);
    const field = dialog.querySelector('dd[data-transfer="freezes"]');
    expect(field?.textContent).toContain('16 kB of 65.5 kB, then nothing for 2 s');
    expect(within(dialog).getByText('Transfer test')).toBeTruthy();
  });

  it('says when no transfer test ran yet', () => {
    const { store } = renderWithStore(<Dialogs />, sampleSnapshot(NOW));
    act(() => store.getState().openDialog({ kind: 'server-details', serverId: 'nl' }));
    expect(screen.getByRole('dialog').querySelector('dd[data-transfer="none"]')?.textContent).toBe('not run yet');
  });
});

describe('a subscription’s settings', () => {
  const open = async () => {
    const world = renderWithStore(
      <>
        <SubscriptionHeader subscriptionId="B" matched={1} />
        <Dialogs />
      </>,
      sampleSnapshot(NOW),
    );
    await userEvent.click(screen.getByRole('button', { name: 'Settings of Backup B' }));
    return { ...world, dialog: screen.getByRole('dialog', { name: /^Settings of \u2068Backup B\u2069$/ }) };
  };

  it('the User-Agent of an existing subscription is edited from its header, saved, and the subscription updated with it', async () => {
    const { client, store, dialog } = await open();
    const field = within(dialog).getByRole('textbox', { name: /User-Agent/ });
    expect((field as HTMLInputElement).value).toBe('');
    await userEvent.type(field, 'clash-verge/v1.7.7');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Save' }));
    expect(client.callsTo('editSubscription')).toEqual([{ id: 'B', userAgent: 'clash-verge/v1.7.7' }]);
    await vi.waitFor(() => expect(client.callsTo('updateSubscription')).toEqual([{ id: 'B' }]));
    expect(screen.queryByRole('dialog')).toBeNull();
    expect(store.getState().subscriptions.find((s) => s.id === 'B')?.userAgent).toBe('clash-verge/v1.7.7');

    // Opened again it shows the saved one; emptied, the app's own User-Agent is used again.
    await userEvent.click(screen.getByRole('button', { name: 'Settings of Backup B' }));
    const again = screen.getByRole('dialog', { name: /^Settings of \u2068Backup B\u2069$/ });
    const saved = within(again).getByRole('textbox', { name: /User-Agent/ });
    expect((saved as HTMLInputElement).value).toBe('clash-verge/v1.7.7');
    await userEvent.clear(saved);
    await userEvent.click(within(again).getByRole('button', { name: 'Save' }));
    expect(client.callsTo('editSubscription').at(-1)).toEqual({ id: 'B', userAgent: null });
  });

  it('a User-Agent that cannot be sent is refused with why, in the user’s words, and nothing is sent', async () => {
    const { client, dialog } = await open();
    await userEvent.type(within(dialog).getByRole('textbox', { name: /User-Agent/ }), 'Клиент/1.0');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Save' }));
    expect(within(dialog).getByRole('alert').textContent).toBe(
      'The User-Agent must be one line of printable ASCII (Latin letters, digits, spaces, punctuation), at most 300 characters.',
    );
    expect(within(dialog).getByRole('textbox', { name: /User-Agent/ }).getAttribute('aria-invalid')).toBe('true');
    expect(client.callsTo('editSubscription')).toEqual([]);
  });

  it('the host’s refusal is shown in the dialog, which stays open', async () => {
    const { client, dialog } = await open();
    client.failNext('editSubscription', 'Could not save the subscriptions: disk full.');
    await userEvent.type(within(dialog).getByRole('textbox', { name: /User-Agent/ }), 'Happ/3.0');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Save' }));
    expect(within(dialog).getByRole('alert').textContent).toBe('Could not save the subscriptions: disk full.');
    expect(client.callsTo('updateSubscription')).toEqual([]);
  });
});
