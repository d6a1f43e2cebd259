import { describe, expect, it } from 'vitest';
import { DEFAULT_SETTINGS } from '../../shared/settings';
import { buildTrayMenu, EMPTY_TRAY_STATE, trayStateAfter } from './tray-menu';
import { trayTranslator } from './tray-text';

describe('the kill switch in the tray', () => {
  const killSwitchItems = (on: boolean | null, language: 'en' | 'fa' = 'en') => {
    const state = on === null ? EMPTY_TRAY_STATE : trayStateAfter(EMPTY_TRAY_STATE, 'settings', { ...DEFAULT_SETTINGS, killSwitch: on });
    return buildTrayMenu(state, trayTranslator(language)).filter((item) => item.kind === 'checkbox' && item.action.type === 'set-kill-switch');
  };

  it.each([
    [false, { kind: 'checkbox', label: 'Kill switch', checked: false, action: { type: 'set-kill-switch', on: true } }],
    [true, { kind: 'checkbox', label: 'Kill switch', checked: true, action: { type: 'set-kill-switch', on: false } }],
  ])('on %s: a checkbox that turns it the other way', (on, item) => {
    expect(killSwitchItems(on)).toEqual([item]);
  });

  it('is named in the user’s language', () => {
    expect(killSwitchItems(true, 'fa')).toMatchObject([{ label: 'کلید قطع اضطراری' }]);
  });

  it('is not offered before the settings are known', () => {
    expect(killSwitchItems(null)).toEqual([]);
  });
});
