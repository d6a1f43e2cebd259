import { act, cleanup, fireEvent, screen } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { REFUSAL_CODES } from '../../../shared/domain/refusal';
import { type ValidationProblem, VALIDATION_TOPICS } from '../../../shared/domain/validation';
import { LANGUAGES } from '../../../shared/settings';
import { Dialogs } from '../components/Dialogs';
import { renderWithStore } from '../testing/render';
import { sampleSnapshot } from '../testing/sample-world';
import { createI18n } from '.';
import { validationText } from './validation';

vi.setConfig({ testTimeout: 20_000 });
afterEach(cleanup);

const prefixTooLong: ValidationProblem = {
  topic: 'prefix-length',
  params: { value: '10.0.0.0/33', max: 32 },
  path: ['routing', 'rules', 0, 'ip', 0],
  english: 'invalid setting routing, rule 1, ip 1: "10.0.0.0/33" has a prefix length outside 0-32',
};

describe('the engine’s validation topics in the catalogue', () => {
  it.each(LANGUAGES)('every topic and the invalid-setting refusal have their own words in %s', (language) => {
    const i18n = createI18n(language);
    for (const topic of VALIDATION_TOPICS) {
      const key = `validation.${topic}`;
      expect(i18n.exists(key, { fallbackLng: [] }), `${language}: ${key}`).toBe(true);
    }
    for (const code of REFUSAL_CODES) expect(i18n.exists(`refusal.${code}`, { fallbackLng: [] }), `${language}: refusal.${code}`).toBe(true);
  });

  it.each([
    ['fa', 'طول پیشوند \u206810.0.0.0/33\u2069 بیرون از بازهٔ ۰ تا ۳۲ است.'],
    ['zh', '\u206810.0.0.0/33\u2069 的前缀长度不在 0–32 之内。'],
    ['en', '\u206810.0.0.0/33\u2069 has a prefix length outside 0–32.'],
  ] as const)('words a problem in %s, its numbers in the language’s digits and its value isolated', (language, text) => {
    const i18n = createI18n(language);
    expect(validationText(i18n.t, prefixTooLong)).toBe(text);
  });
});

describe('a settings value the engine refused, in the Settings dialog', () => {
  it.each([
    ['fa', 'طول پیشوند \u206810.0.0.0/33\u2069 بیرون از بازهٔ ۰ تا ۳۲ است.', 'برخی مقدارها نیاز به اصلاح دارند'],
    ['zh', '\u206810.0.0.0/33\u2069 的前缀长度不在 0–32 之内。', '有些值需要修改'],
  ] as const)('in %s: worded at the Routing page, not in the engine’s English', async (language, worded, formSays) => {
    const { store, client } = renderWithStore(<Dialogs />, sampleSnapshot(Date.now()), { language });
    act(() => store.getState().openDialog({ kind: 'settings' }));
    const dialog = screen.getByRole('dialog');
    // Any change, so Save sends a patch; the engine's own check refuses it.
    const theme = [...dialog.querySelectorAll('select')].find((select) => [...select.options].some((o) => o.value === 'dark'))!;
    fireEvent.change(theme, { target: { value: theme.value === 'dark' ? 'light' : 'dark' } });
    client.failNext('setSettings', prefixTooLong.english, 'invalid-setting', prefixTooLong);
    await act(async () => {
      fireEvent.submit(dialog.querySelector('form')!);
    });
    expect(client.callsTo('setSettings')).toHaveLength(1);
    const routingPage = dialog.querySelector('[role="tabpanel"]')!;
    expect(routingPage.textContent).toContain(worded);
    expect(dialog.textContent).not.toContain('prefix length outside');
    expect(dialog.textContent).toContain(formSays);
  });
});

describe('text the import box cannot read, in the user’s language', () => {
  it.each([
    ['fa', 'خوانده نشد: نه پیوند سرور است، نه نشانی اشتراک، نه پیوند واردکردن و نه محتوای یک اشتراک.'],
    ['zh', '无法读取：它不是分享链接、订阅地址、导入链接，也不是订阅内容。'],
  ] as const)('in %s: the engine’s reason worded from its topic, the English kept as the details', async (language, worded) => {
    const { store, client } = renderWithStore(<Dialogs />, sampleSnapshot(Date.now()), { language });
    const english = 'Nothing to add: it holds neither a share link, a subscription address, an import link nor a subscription’s contents.';
    client.failNext('offerImport', english, 'nothing-to-import', { topic: 'import-nothing-recognised', params: {}, path: [], english });
    act(() => store.getState().openDialog({ kind: 'add-subscription' }));
    const dialog = screen.getByRole('dialog');
    fireEvent.change(dialog.querySelector('textarea')!, { target: { value: 'hello' } });
    await act(async () => {
      fireEvent.submit(dialog.querySelector('form')!);
    });
    expect(client.callsTo('offerImport')).toHaveLength(1);
    expect(screen.getByRole('alert').textContent).toBe(worded);
    expect(dialog.textContent).toContain(english);
  });
});
