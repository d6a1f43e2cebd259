import { describe, expect, it } from 'vitest';
import { LANGUAGES } from '../../shared/settings';
import { EngineRefusal } from '../../shared/domain/refusal';
import { catalogueText, TRAY_TEXT_PATHS, type TrayTextKey, trayLanguage, trayRefusalNotice, trayTranslator } from './tray-text';

const KEYS = Object.keys(TRAY_TEXT_PATHS) as TrayTextKey[];

describe('the tray’s words come from the window’s catalogue', () => {
  it.each(LANGUAGES)('every tray text exists in %s', (language) => {
    for (const key of KEYS) expect(catalogueText(language, TRAY_TEXT_PATHS[key]), `${language}: ${key} (${TRAY_TEXT_PATHS[key]})`).toMatch(/\S/);
  });

  it('each language’s tray says its own words, not English', () => {
    for (const language of LANGUAGES.filter((l) => l !== 'en')) {
      const t = trayTranslator(language);
      expect(t('quit'), language).not.toBe(trayTranslator('en')('quit'));
      expect(t('disconnected'), language).toBe(catalogueText(language, 'connection.state.disconnected'));
    }
  });

  it('fills in the placeholders', () => {
    expect(trayTranslator('en')('modeLine', { mode: trayTranslator('en')('mode-system-wide') })).toBe('Mode: System-wide');
    expect(trayTranslator('ru')('modeLine', { mode: 'X' })).toBe('Режим: X');
  });

  it('a path the catalogue lacks is no text', () => {
    expect(catalogueText('en', 'desktop.tray.nothing')).toBeUndefined();
    expect(catalogueText('en', 'desktop.tray')).toBeUndefined();
  });
});

describe('a refused tray request, as the notification tells it', () => {
  it.each([
    ['ru', 'connect', new EngineRefusal('no-server-chosen', 'choose a server'), { title: 'Не удалось подключиться', body: 'Выберите сервер для подключения или включите «Авто» для подписки.' }],
    ['zh', 'set-auto', new EngineRefusal('no-such-subscription', 'no subscription with id "x"'), { title: '无法更改“自动”', body: '此订阅已不在列表中。' }],
    ['ar', 'disconnect', new Error('the core did not stop'), { title: 'تعذّر قطع الاتصال', body: 'the core did not stop' }],
    ['en', 'connect', Object.assign(new Error('the moon is in the way'), { code: 'moon-in-the-way' }), { title: 'Could not connect', body: 'the moon is in the way' }],
  ] as const)('%s, %s: what failed, and why in the user’s language when the engine named it', (language, request, error, notice) => {
    expect(trayRefusalNotice(trayTranslator(language), request, error)).toEqual(notice);
  });
});

describe('tray language', () => {
  it('follows the setting, else the system locale, else English', () => {
    expect(trayLanguage('ru', 'en-US')).toBe('ru');
    expect(trayLanguage('system', 'fa-IR')).toBe('fa');
    expect(trayLanguage('system', 'zh_CN')).toBe('zh');
    expect(trayLanguage('system', 'de-DE')).toBe('en');
  });
});
