import { act, cleanup, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { CoreSummary } from '../../../shared/domain/connection';
import { renderWithStore } from '../testing/render';
import { sampleSnapshot } from '../testing/sample-world';
import { Dialogs } from './Dialogs';

vi.setConfig({ testTimeout: 20_000 });
afterEach(cleanup);

const NOW = Date.now();
const XRAY: CoreSummary = { family: 'xray', version: '25.3.6', path: '/opt/xray/xray', antiDpi: { fragment: true, noise: true } };

function openPage(options: { core?: CoreSummary | null; language?: 'en' | 'fa' } = {}) {
  const snapshot = sampleSnapshot(NOW);
  const rendered = renderWithStore(<Dialogs />, options.core === undefined ? snapshot : { ...snapshot, core: options.core }, { language: options.language ?? 'en' });
  act(() => rendered.store.getState().openDialog({ kind: 'settings' }));
  const dialog = screen.getByRole('dialog');
  return { ...rendered, dialog };
}

const field = (scope: HTMLElement, name: RegExp) => within(scope).getByRole('textbox', { name }) as HTMLInputElement;

describe('Settings → Anti-censorship', () => {
  it('says plainly that v2ray 4.34 cannot do it, and still keeps what the user sets', async () => {
    const { dialog, client } = openPage();
    await userEvent.click(within(dialog).getByRole('tab', { name: 'Anti-censorship' }));
    const page = within(dialog).getByRole('tabpanel', { name: 'Anti-censorship' });
    expect(within(page).getByRole('note').textContent).toBe(
      'Not available with \u2068v2ray 4.34.0\u2069: these options need Xray (choose it on the Cores page). What you set here is kept and used once the core can.',
    );
    await userEvent.click(within(page).getByRole('checkbox', { name: 'Split the first packet of each connection' }));
    await userEvent.click(within(dialog).getByRole('button', { name: 'Save' }));
    expect(client.callsTo('setSettings')).toEqual([
      { antiDpi: { fragment: { enabled: true, packets: 'tlshello', length: '100-200', interval: '10-20' }, noise: { enabled: false, type: 'rand', packet: '10-20', delay: '10-16' }, servers: {} } },
    ]);
  });

  it.each([
    ['both, for a recent Xray', { ...XRAY }, 'both', '\u2068Xray 25.3.6\u2069 can do both.'],
    ['no noise, for an older Xray', { ...XRAY, version: '1.8.16', antiDpi: { fragment: true, noise: false } }, 'noNoise', 'has no UDP noise'],
    ['nothing yet, without a core', null, 'no-core', 'No core was found'],
  ] as const)('tells what the core can do: %s', async (_name, core, state, words) => {
    const { dialog } = openPage({ core });
    await userEvent.click(within(dialog).getByRole('tab', { name: 'Anti-censorship' }));
    const note = within(dialog).getByRole('note');
    expect(note.getAttribute('data-anti-dpi')).toBe(state);
    expect(note.textContent).toContain(words);
  });

  it('names each bad field in words, sends nothing and keeps what was typed; once fixed, sends the values', async () => {
    const { dialog, client } = openPage({ core: XRAY });
    await userEvent.click(within(dialog).getByRole('tab', { name: 'Anti-censorship' }));
    const page = within(dialog).getByRole('tabpanel', { name: 'Anti-censorship' });
    await userEvent.click(within(page).getByRole('checkbox', { name: 'Split the first packet of each connection' }));
    await userEvent.clear(field(page, /^Piece size/));
    await userEvent.type(field(page, /^Piece size/), '50..100');
    await userEvent.clear(field(page, /^Packets/));
    await userEvent.type(field(page, /^Packets/), 'first');
    // Moving to another page and saving from there brings the user back to the problem.
    await userEvent.click(within(dialog).getByRole('tab', { name: 'General' }));
    await userEvent.click(within(dialog).getByRole('button', { name: 'Save' }));
    expect(client.callsTo('setSettings')).toEqual([]);
    expect(within(dialog).getByRole('tab', { name: 'Anti-censorship' }).getAttribute('aria-selected')).toBe('true');
    expect(within(dialog).getByRole('alert').textContent).toBe('Some values need fixing.');
    expect(field(page, /^Piece size/).value).toBe('50..100');
    expect(field(page, /^Piece size/).getAttribute('aria-invalid')).toBe('true');
    expect(field(page, /^Piece size/).labels?.[0]?.textContent).toContain('Enter a number or a range such as 10-20.');
    expect(field(page, /^Packets/).labels?.[0]?.textContent).toContain('Enter “tlshello”, a number or a range such as 1-3.');
    expect(field(page, /^Pause between pieces/).getAttribute('aria-invalid')).toBe('false');

    await userEvent.clear(field(page, /^Piece size/));
    await userEvent.type(field(page, /^Piece size/), '50-100');
    await userEvent.clear(field(page, /^Packets/));
    await userEvent.type(field(page, /^Packets/), '1-3');
    await userEvent.click(within(page).getByRole('checkbox', { name: 'Send noise before UDP connections' }));
    await userEvent.selectOptions(within(page).getByRole('combobox', { name: 'Noise' }), 'str');
    await userEvent.clear(field(page, /^Text to send/));
    await userEvent.type(field(page, /^Text to send/), 'hello');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Save' }));
    expect(client.callsTo('setSettings')).toEqual([
      { antiDpi: { fragment: { enabled: true, packets: '1-3', length: '50-100', interval: '10-20' }, noise: { enabled: true, type: 'str', packet: 'hello', delay: '10-16' }, servers: {} } },
    ]);
  });

  it('reads right to left in Persian, with the ranges left to right', async () => {
    const { dialog } = openPage({ language: 'fa' });
    await userEvent.click(within(dialog).getByRole('tab', { name: 'ضدسانسور' }));
    const page = within(dialog).getByRole('tabpanel', { name: 'ضدسانسور' });
    expect(within(page).getByRole('note').textContent).toContain('با \u2068v2ray 4.34.0\u2069 در دسترس نیست');
    const length = field(page, /^اندازهٔ هر تکه/);
    expect(length.getAttribute('dir')).toBe('ltr');
    expect(length.value).toBe('100-200');
  });
});

describe('a server sing-box carries: which option reaches it, in its details', () => {
  function openCarried(protocol: string | null, core: CoreSummary = XRAY) {
    const snapshot = sampleSnapshot(NOW);
    const subscriptions = snapshot.subscriptions.map((sub) => ({ ...sub, servers: sub.servers.map((s) => (s.id === 'de' && protocol ? { ...s, protocol: protocol as never } : s)) }));
    const carried: Record<string, string> = protocol ? { de: 'carried by sing-box 1.14.1: not supported by Xray 25.3.6' } : {};
    const rendered = renderWithStore(<Dialogs />, { ...snapshot, subscriptions, carried, core });
    act(() => rendered.store.getState().openDialog({ kind: 'server-details', serverId: 'de' }));
    return within(screen.getByRole('dialog', { name: 'Germany · Frankfurt' })).getByRole('region', { name: 'Anti-censorship' });
  }
  const reach = (section: HTMLElement) => section.querySelector('[data-anti-dpi-carried]');

  it.each([
    ['AnyTLS, over TCP: the fragment reaches it, the noise does not', 'anytls', 'tcp', 'This server is carried by a second core over TCP: \u2068Xray 25.3.6\u2069 splits its ClientHello; UDP noise does not apply to it.'],
    ['TUIC, over UDP: the noise reaches it, the fragment does not', 'tuic', 'udp', 'the ClientHello fragment does not apply, as the ClientHello is inside QUIC.'],
  ])('%s', (_name, protocol, kind, words) => {
    const note = reach(openCarried(protocol));
    expect(note?.getAttribute('data-anti-dpi-carried')).toBe(kind);
    expect(note?.textContent).toContain(words);
  });

  it('nothing is said for a server the main core runs, nor where the main core lacks the option that would reach it', () => {
    expect(reach(openCarried(null))).toBeNull();
    cleanup();
    expect(reach(openCarried('tuic', { ...XRAY, version: '1.8.16', antiDpi: { fragment: true, noise: false } }))).toBeNull();
  });
});

describe('a server’s own anti-DPI setting, in its details', () => {
  function openDetails(antiDpiServers: Record<string, unknown> = {}) {
    const snapshot = sampleSnapshot(NOW);
    const settings = { ...snapshot.settings, antiDpi: { ...snapshot.settings.antiDpi, servers: antiDpiServers as never } };
    const rendered = renderWithStore(<Dialogs />, { ...snapshot, core: XRAY, settings });
    act(() => rendered.store.getState().openDialog({ kind: 'server-details', serverId: 'de' }));
    const dialog = screen.getByRole('dialog', { name: 'Germany · Frankfurt' });
    const section = within(dialog).getByRole('region', { name: 'Anti-censorship' });
    return { ...rendered, dialog, section };
  }

  it('starts on the global setting and says what that is', () => {
    const { section } = openDetails();
    expect((within(section).getByRole('radio', { name: 'Use the global setting' }) as HTMLInputElement).checked).toBe(true);
    expect(section.textContent).toContain('Global setting: fragment off, noise off.');
    expect(within(section).queryByRole('textbox')).toBeNull();
  });

  it('saves values of its own, starting from the global ones; a bad one is named and nothing is sent', async () => {
    const { section, client, store } = openDetails({ fi: 'off' });
    await userEvent.click(within(section).getByRole('radio', { name: 'Values of its own' }));
    expect(field(section, /^Piece size/).value).toBe('100-200');
    await userEvent.click(within(section).getByRole('checkbox', { name: 'Split the first packet of each connection' }));
    await userEvent.clear(field(section, /^Pause between pieces/));
    await userEvent.type(field(section, /^Pause between pieces/), 'often');
    await userEvent.click(within(section).getByRole('button', { name: 'Save for this server' }));
    expect(client.callsTo('setSettings')).toEqual([]);
    expect(field(section, /^Pause between pieces/).labels?.[0]?.textContent).toContain('Enter a number or a range such as 10-20.');
    expect(within(section).getByRole('status').textContent).toBe('Some values need fixing.');

    await userEvent.clear(field(section, /^Pause between pieces/));
    await userEvent.type(field(section, /^Pause between pieces/), '1-5');
    await userEvent.click(within(section).getByRole('button', { name: 'Save for this server' }));
    const own = { fragment: { enabled: true, packets: 'tlshello', length: '100-200', interval: '1-5' }, noise: { enabled: false, type: 'rand', packet: '10-20', delay: '10-16' } };
    expect(client.callsTo('setSettings')).toEqual([{ antiDpi: expect.objectContaining({ servers: { fi: 'off', de: own } }) }]);
    expect(store.getState().settings.antiDpi.servers).toEqual({ fi: 'off', de: own });
    expect(within(section).getByRole('status').textContent).toBe('Saved for this server.');
  });

  it('turns it off for this server, and back to the global setting, leaving other servers alone', async () => {
    const { section, client } = openDetails({ fi: 'off', de: 'on' });
    expect((within(section).getByRole('radio', { name: 'Values of its own' }) as HTMLInputElement).checked).toBe(true);
    await userEvent.click(within(section).getByRole('radio', { name: 'Off for this server' }));
    await userEvent.click(within(section).getByRole('button', { name: 'Save for this server' }));
    await userEvent.click(within(section).getByRole('radio', { name: 'Use the global setting' }));
    await userEvent.click(within(section).getByRole('button', { name: 'Save for this server' }));
    const servers = (client.callsTo('setSettings') as { antiDpi: { servers: unknown } }[]).map((patch) => patch.antiDpi.servers);
    expect(servers).toEqual([{ fi: 'off', de: 'off' }, { fi: 'off' }]);
  });
});
