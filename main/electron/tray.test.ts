import { join } from 'node:path';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { ConnectionState } from '../../shared/domain/connection';
import { sampleServer } from '../../shared/domain/sample-servers';
import { sampleSubscription } from '../../shared/testing/sample-subscriptions';
import type { AppSnapshot } from '../../shared/ipc/contract';
import { DEFAULT_SETTINGS } from '../../shared/settings';
import { EngineRefusal } from '../../shared/domain/refusal';
import { fake, FakeNotification, FakeTray, resetFakeElectron } from './testing/fake-electron';
import { DesktopTray, toMenuTemplate } from './tray';
import { loadTrayFlags, TRAY_FLAGS_DIR } from './tray-flags';
import type { TrayAction } from './tray-menu';

vi.mock('electron', async () => (await import('./testing/fake-electron')).fakeElectronModule());

beforeEach(() => resetFakeElectron());

const connected = (serverId: string): ConnectionState => ({
  state: 'connected',
  serverId,
  httpProxy: null,
  socksProxy: null,
  since: 0,
  error: null,
  core: null,
});

function makeTray() {
  const actions: TrayAction[] = [];
  let clicks = 0;
  const tray = new DesktopTray({
    iconPath: (on) => (on ? '/icons/on.png' : '/icons/off.png'),
    systemLocale: 'en-US',
    flagPath: loadTrayFlags(join(process.cwd(), TRAY_FLAGS_DIR)),
    dispatch: (a) => actions.push(a),
    onClick: () => clicks++,
  });
  return { tray, fakeTray: FakeTray.instances.at(-1)!, actions, clicks: () => clicks };
}

describe('DesktopTray', () => {
  it('starts with the disconnected icon and a menu; clicking the icon shows the window', () => {
    const { fakeTray, clicks } = makeTray();
    expect(fakeTray.images).toEqual(['/icons/off.png']);
    expect(fakeTray.menu.map((i) => i.label ?? i.type)).toEqual(['Disconnected', 'separator', 'Connect', 'separator', 'Show Steadfast VPN', 'Quit']);
    fakeTray.emit('click');
    expect(clicks()).toBe(1);
  });

  it('rebuilds the menu on state events, switches the icon when connected, and menu clicks become actions', () => {
    const { tray, fakeTray, actions } = makeTray();
    tray.onEvent('connection', connected('x'));
    expect(fakeTray.images.at(-1)).toBe('/icons/on.png');
    expect(fakeTray.tooltip).toBe('Steadfast VPN — Connected');
    const disconnect = fakeTray.menu.find((i) => i.label === 'Disconnect')!;
    disconnect.click!();
    fakeTray.menu.find((i) => i.label === 'Quit')!.click!();
    expect(actions).toEqual([{ type: 'disconnect' }, { type: 'quit' }]);
  });

  it('does not replace an unchanged menu (status bursts would make some trays flicker)', () => {
    const { tray, fakeTray } = makeTray();
    const before = fakeTray.menus.length;
    tray.onEvent('statuses', []);
    tray.onEvent('traffic', { at: 1, intervalMs: 1000, upBytes: 1, downBytes: 1 });
    expect(fakeTray.menus.length).toBe(before);
  });

  it('follows the language setting', () => {
    const { tray, fakeTray } = makeTray();
    tray.onEvent('settings', { ...DEFAULT_SETTINGS, language: 'ru' });
    expect(fakeTray.menu[0]!.label).toBe('Отключено');
  });

  it('maps menu data to Electron’s template', () => {
    const dispatched: TrayAction[] = [];
    const template = toMenuTemplate(
      [
        { kind: 'label', label: 'Status' },
        { kind: 'separator' },
        { kind: 'checkbox', label: 'Work', checked: true, action: { type: 'set-auto', subscriptionId: null } },
        { kind: 'action', label: 'Connect', enabled: false, action: { type: 'show-window' } },
      ],
      (a) => dispatched.push(a),
    );
    expect(template.map(({ click: _click, ...rest }) => rest)).toEqual([
      { label: 'Status', enabled: false },
      { type: 'separator' },
      { label: 'Work', type: 'checkbox', checked: true },
      { label: 'Connect', enabled: false },
    ]);
    (template[2]!.click as () => void)();
    expect(dispatched).toEqual([{ type: 'set-auto', subscriptionId: null }]);
  });

  it('draws the flags of names as the items’ icons, and says the country in words for screen readers', () => {
    const { tray, fakeTray } = makeTray();
    const amsterdam = sampleServer('vless', 'tcp', { id: 'nl1', name: '🇳🇱 Amsterdam', subscriptionId: 'sub' });
    const snapshot = {
      connection: connected('nl1'),
      subscriptions: [sampleSubscription('sub', [amsterdam], { name: '🇩🇪 Germany' })],
      auto: { subscriptionId: null, excluded: {}, returnCandidate: null, networkLostUntil: null, timeline: [] },
      statuses: {},
      settings: DEFAULT_SETTINGS,
    } as unknown as AppSnapshot;
    tray.onEvent('snapshot', snapshot);
    const [status] = fakeTray.menu;
    expect(status!.label).toBe('Connected: Netherlands Amsterdam');
    expect(status!.icon!.path).toBe(join(process.cwd(), TRAY_FLAGS_DIR, 'NL.png'));
    expect(status!.icon!.getSize()).toEqual({ width: 24, height: 16 });
    const subscription = fakeTray.menu.find((i) => i.type === 'checkbox')!;
    expect(subscription).toMatchObject({ label: 'Germany' });
    expect(subscription.icon!.path).toMatch(/DE\.png$/);
    expect(fakeTray.menu.find((i) => i.label === 'Disconnect')!.icon).toBeUndefined();
    expect(fakeTray.tooltip).toBe('Steadfast VPN — Connected: Netherlands Amsterdam (Proxy)');

    tray.onEvent('settings', { ...DEFAULT_SETTINGS, language: 'ru' });
    expect(fakeTray.menu[0]!.label).toBe('Подключено: Нидерланды Amsterdam');
  });

  it('without the flag images a name still reads as its country, with no icon', () => {
    const actions: TrayAction[] = [];
    const tray = new DesktopTray({ iconPath: () => '/icons/off.png', systemLocale: 'en-US', dispatch: (a) => actions.push(a), onClick: () => undefined });
    const fakeTray = FakeTray.instances.at(-1)!;
    tray.onEvent('subscriptions', [{ id: 'sub', name: '🇩🇪 Work', servers: [], usage: null, rejected: [], updatedAt: null, lastError: null, pendingEmpty: false }]);
    const subscription = fakeTray.menu.find((i) => i.type === 'checkbox')!;
    expect(subscription.label).toBe('Germany Work');
    expect(subscription.icon).toBeUndefined();
  });

  it('tells a refusal in a notification in the tray’s language, and shows none where the desktop has no notifications', () => {
    const { tray } = makeTray();
    tray.onEvent('settings', { ...DEFAULT_SETTINGS, language: 'ar' });
    tray.tellRefusal('connect', new EngineRefusal('server-unsupported', 'not supported by v2ray 4.34.0: REALITY needs Xray ≥ 1.8.0'));
    expect(FakeNotification.shown).toEqual([{ title: 'تعذّر الاتصال', body: 'لا تستطيع النواة المثبّتة تشغيل هذا الخادم.' }]);
    fake.notificationsSupported = false;
    tray.tellRefusal('connect', new Error('the core exited'));
    expect(FakeNotification.shown).toHaveLength(1);
  });

  it('counts the next try of a lost network down each second, without the connected icon, and stops when the engine clears it', () => {
    vi.useFakeTimers({ now: 5_000_000 });
    try {
      const { tray, fakeTray } = makeTray();
      tray.onEvent('connection', connected('x'));
      expect(fakeTray.images.at(-1)).toBe('/icons/on.png');
      tray.onEvent('auto', { subscriptionId: null, excluded: {}, returnCandidate: null, networkLostUntil: Date.now() + 15_000, timeline: [] });
      expect(fakeTray.tooltip).toBe('Steadfast VPN — Network lost — waiting, next try in 15 s');
      expect(fakeTray.menu[0]!.label).toBe('Network lost — waiting, next try in 15 s');
      expect(fakeTray.images.at(-1)).toBe('/icons/off.png');
      vi.advanceTimersByTime(4_000);
      expect(fakeTray.tooltip).toBe('Steadfast VPN — Network lost — waiting, next try in 11 s');
      tray.onEvent('auto', { subscriptionId: null, excluded: {}, returnCandidate: null, networkLostUntil: null, timeline: [] });
      expect(fakeTray.tooltip).toBe('Steadfast VPN — Connected');
      expect(fakeTray.images.at(-1)).toBe('/icons/on.png');
      expect(vi.getTimerCount()).toBe(0);
      tray.destroy();
    } finally {
      vi.useRealTimers();
    }
  });

  it("turns a server's submenu into Electron's submenu, whose items become the engine's actions", () => {
    const { tray, fakeTray, actions } = makeTray();
    const servers = ['Oslo', 'Bergen'].map((name, i) => sampleServer('vless', 'tcp', { id: `s${i + 1}`, name, subscriptionId: 'A' }));
    tray.onEvent('subscriptions', [sampleSubscription('A', servers)]);
    type Entry = { label?: string; click?: () => void; submenu?: Entry[] };
    const provider = (fakeTray.menu as Entry[]).find((i) => i.label === 'Provider A' && i.submenu);
    const oslo = provider!.submenu!.find((i) => i.label === 'Oslo');
    expect(oslo!.submenu!.map((i) => i.label)).toEqual(['Connect', 'Test', 'Exclude from Auto']);
    for (const item of oslo!.submenu!) item.click!();
    expect(actions).toEqual([
      { type: 'connect-server', serverId: 's1' },
      { type: 'test-server', serverId: 's1' },
      { type: 'set-excluded', subscriptionId: 'A', serverIds: ['s1'] },
    ]);
  });
});
