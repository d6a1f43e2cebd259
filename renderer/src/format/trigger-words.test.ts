import { describe, expect, it } from 'vitest';
import { createI18n } from '../i18n';
import { LANGUAGES } from '../../../shared/settings';
import { triggerText } from './reasons';

describe('a check line names its trigger without doubling the word', () => {
  it.each(LANGUAGES)('%s: "Check (on schedule)", not "Check (scheduled check)"', (language) => {
    const i18n = createI18n(language);
    const check = i18n.t('decision.check', { trigger: '' }).replace(/[()（）\s]/g, '').toLowerCase();
    const line = i18n.t('decision.check', { trigger: triggerText(i18n.t, 'scheduled') });
    expect(line.toLowerCase().split(check).length - 1, line).toBe(1);
  });
});
