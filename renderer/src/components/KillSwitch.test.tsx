import { cleanup, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { AppProblem } from '../../../shared/domain/problem';
import type { Language } from '../../../shared/settings';
import { renderWithStore } from '../testing/render';
import { sampleSnapshot } from '../testing/sample-world';
import { Problems } from './Problems';
import { patchFromDraft, SettingsDialog } from './SettingsDialog';
import { DEFAULT_SETTINGS } from '../../../shared/settings';

vi.setConfig({ testTimeout: 20_000 });
afterEach(cleanup);

const NOW = Date.now();
const left = (since: number | null): AppProblem => ({
  id: 'p9',
  at: NOW,
  severity: 'warning',
  detail: 'The kill switch is still on since 2026-12-02T01:00:00.000Z: nothing leaves this machine outside the tunnel until you turn it off.',
  topic: { kind: 'kill-switch-left', since },
});

describe('the kill switch left in force at start', () => {
  it.each([
    ['en', /The kill switch is still on \(since .+\): nothing leaves this computer outside the VPN/, 'Turn off the kill switch'],
    ['ru', /Аварийный выключатель всё ещё включён \(с .+\)/, 'Выключить аварийный выключатель'],
    ['fa', /کلید قطع اضطراری هنوز روشن است \(از .+\)/, 'خاموش کردن کلید قطع اضطراری'],
    ['ar', /مفتاح القطع ما زال مفعّلًا \(منذ .+\)/, 'إطفاء مفتاح القطع'],
    ['zh', /断网保护仍在生效（自 .+ 起）/, '关闭断网保护'],
  ] as const)('%s: says so in words with the time it has been on, and offers turning it off', async (language, sentence, turnOff) => {
    const { client } = renderWithStore(<Problems />, { ...sampleSnapshot(NOW), problems: [left(NOW - 3_600_000)] }, { language: language as Language });
    const item = within(screen.getByRole('region')).getByRole('listitem');
    expect(item.textContent).toMatch(sentence);
    await userEvent.click(within(item).getByRole('button', { name: turnOff }));
    expect(client.callsTo('setSettings')).toEqual([{ killSwitch: false }]);
  });

  it('without a readable time it still says it is on', () => {
    renderWithStore(<Problems />, { ...sampleSnapshot(NOW), problems: [left(null)] });
    expect(screen.getByRole('listitem').textContent).toContain('The kill switch is still on: nothing leaves this computer outside the VPN until you turn it off.');
  });

  it('no other problem offers it', () => {
    renderWithStore(<Problems />, { ...sampleSnapshot(NOW), problems: [{ id: 'p1', at: NOW, severity: 'error', detail: 'x', topic: { kind: 'system-wide' } }] });
    expect(screen.queryByRole('button', { name: 'Turn off the kill switch' })).toBeNull();
  });
});

describe('the kill switch in Settings → Connection', () => {
  it('sends only what changed: on, and the LAN allowed', () => {
    const settings = DEFAULT_SETTINGS;
    const base = { ...settings, killSwitch: false, killSwitchAllowLan: false };
    const draft = (over: object) => ({ ...baseDraft(), ...over });
    const baseDraft = () => ({
      language: settings.language,
      theme: settings.theme,
      corePath: '',
      coreChoice: 'auto',
      stallThresholdS: '5',
      testUrls: settings.monitor.urls.join('\n'),
      ipInfoUrl: settings.monitor.ipInfoUrl,
      workers: String(settings.monitor.workers),
      intervalMin: String(settings.monitor.intervalMs / 60_000),
      idleTimeoutMin: String(settings.monitor.idleTimeoutMs / 60_000),
      mode: settings.mode,
      killSwitch: false,
      killSwitchAllowLan: false,
      verifyIpv6: settings.monitor.verifyIpv6,
      trustedCheckerId: '',
      logLevel: settings.logLevel,
      startAtLogin: false,
      connectOnStart: false,
      testBudgetMb: '',
    });
    type Draft = Parameters<typeof patchFromDraft>[0];
    expect(patchFromDraft(draft({ killSwitch: true }) as unknown as Draft, base).patch).toMatchObject({ killSwitch: true });
    expect(patchFromDraft(draft({ killSwitch: true, killSwitchAllowLan: true }) as unknown as Draft, base).patch).toMatchObject({ killSwitch: true, killSwitchAllowLan: true });
    expect(patchFromDraft(draft({}) as unknown as Draft, base).patch).not.toHaveProperty('killSwitch');
  });
});

describe('Settings → Connection says what IPv6 does in each mode and offers the kill switch', () => {
  it.each([
    ['system-proxy', true],
    ['proxy', true],
    ['system-wide', false],
  ] as const)('%s: the IPv6 note shown %s', async (mode, shown) => {
    const snapshot = sampleSnapshot(NOW);
    renderWithStore(<SettingsDialog />, { ...snapshot, settings: { ...snapshot.settings, mode } });
    await userEvent.click(screen.getByRole('tab', { name: 'Connection' }));
    expect(screen.queryByText(/^IPv6 in this mode: apps that use the proxy hand it the site’s name/) !== null).toBe(shown);
    const killSwitch = screen.getByRole('checkbox', { name: /^Kill switch/ });
    expect((killSwitch as HTMLInputElement).checked).toBe(false);
    expect((screen.getByRole('checkbox', { name: /^Allow the local network/ }) as HTMLInputElement).disabled).toBe(true);
  });
});
