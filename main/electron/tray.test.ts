import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { ConnectionState } from '../../shared/domain/connection';
import { DEFAULT_SETTINGS } from '../../shared/settings';
import { FakeTray, resetFakeElectron } from './testing/fake-electron';
import { DesktopTray, toMenuTemplate } from './tray';
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
});
