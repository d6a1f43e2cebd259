import { describe, expect, it } from 'vitest';
import { REFUSAL_CODES } from '../../../shared/domain/refusal';
import { LANGUAGES } from '../../../shared/settings';
import { createI18n } from '.';
import { refusalText } from './refusal';

describe('the words for a refusal', () => {
  it.each(LANGUAGES)('%s has its own sentence for every refusal code', (language) => {
    const { t } = createI18n(language);
    for (const code of REFUSAL_CODES) {
      const text = refusalText(t, { error: 'the engine’s words', code });
      expect(text, code).not.toBe(`refusal.${code}`);
      expect(text, code).not.toBe('the engine’s words');
    }
  });

  it('a refusal without a code is the engine’s words', () => {
    const { t } = createI18n('ru');
    expect(refusalText(t, { error: 'the monitor is not running' })).toBe('the monitor is not running');
    expect(refusalText(t, { error: 'x', code: 'no-such-subscription' })).toBe('Этой подписки больше нет в списке.');
  });
});
