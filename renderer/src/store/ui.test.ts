import { describe, expect, it } from 'vitest';
import { DEFAULT_SETTINGS } from '../../../shared/settings';
import { sampleSnapshot } from '../testing/sample-world';
import { storeWith } from '../testing/store';
import { directionOf, matchLanguage, selectLanguage, selectTheme } from './ui';

const NOW = 1_000_000;

describe('ui slice', () => {
  it.each([
    ['fa-IR', 'fa'],
    ['ar', 'ar'],
    ['ru-RU', 'ru'],
    ['zh-Hans-CN', 'zh'],
    ['en-GB', 'en'],
    ['de-DE', 'en'],
    ['', 'en'],
  ])('the system language %s maps to %s', (tag, language) => {
    expect(matchLanguage(tag)).toBe(language);
  });

  it('uses the setting, or the system language when the setting is "system"', () => {
    expect(selectLanguage({ settings: { ...DEFAULT_SETTINGS, language: 'system' }, systemLanguage: 'fa-IR' })).toBe('fa');
    expect(selectLanguage({ settings: { ...DEFAULT_SETTINGS, language: 'ru' }, systemLanguage: 'fa-IR' })).toBe('ru');
  });

  it('lays Persian and Arabic out right to left, the others left to right', () => {
    expect(['en', 'ru', 'fa', 'ar', 'zh'].map((l) => directionOf(l as never))).toEqual(['ltr', 'ltr', 'rtl', 'rtl', 'ltr']);
  });

  it('follows the system colour scheme only when the theme is "system"', () => {
    const base = DEFAULT_SETTINGS;
    expect(selectTheme({ settings: { ...base, theme: 'system' }, prefersDark: true })).toBe('dark');
    expect(selectTheme({ settings: { ...base, theme: 'system' }, prefersDark: false })).toBe('light');
    expect(selectTheme({ settings: { ...base, theme: 'light' }, prefersDark: true })).toBe('light');
  });

  it('keeps the four latest notices and dismisses by id', async () => {
    const { store } = await storeWith(sampleSnapshot(NOW));
    for (let i = 0; i < 6; i++) store.getState().pushNotice({ tone: 'error', what: 'connect', text: `n${i}` });
    expect(store.getState().notices.map((n) => n.text)).toEqual(['n2', 'n3', 'n4', 'n5']);
    store.getState().dismissNotice(store.getState().notices[0]!.id);
    expect(store.getState().notices.map((n) => n.text)).toEqual(['n3', 'n4', 'n5']);
  });

  it('keeps the filter, the order and collapsed groups', async () => {
    const { store } = await storeWith(sampleSnapshot(NOW));
    store.getState().setFilter('fin');
    store.getState().setSort('ping');
    store.getState().toggleCollapsed('A');
    expect(store.getState()).toMatchObject({ filter: 'fin', sort: 'ping', collapsed: { A: true } });
    store.getState().toggleCollapsed('A');
    expect(store.getState().collapsed.A).toBe(false);
  });

  it('knows it is in demo mode from the snapshot', async () => {
    const { store } = await storeWith({ ...sampleSnapshot(NOW), demo: false });
    expect(store.getState().demo).toBe(false);
    expect(store.getState().ready).toBe(true);
  });
});
