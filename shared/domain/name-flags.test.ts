import { describe, expect, it } from 'vitest';
import { hasFlags, splitFlags } from './name-flags';

describe('flag emoji in names', () => {
  it.each([
    ['🇩🇪 Germany', [{ flag: 'DE', emoji: '🇩🇪' }, { text: ' Germany' }]],
    ['Fast 🇫🇮🇸🇪 #2', [{ text: 'Fast ' }, { flag: 'FI', emoji: '🇫🇮' }, { flag: 'SE', emoji: '🇸🇪' }, { text: ' #2' }]],
    ['🇮🇷 ایران - همراه اول', [{ flag: 'IR', emoji: '🇮🇷' }, { text: ' ایران - همراه اول' }]],
    ['Netherlands', [{ text: 'Netherlands' }]],
    ['', [{ text: '' }]],
    // A lone regional indicator is no flag: it stays text.
    ['\u{1F1E9} half', [{ text: '\u{1F1E9} half' }]],
  ])('%s', (name, parts) => {
    expect(splitFlags(name)).toEqual(parts);
  });

  it('tells names with flags from plain ones', () => {
    expect(hasFlags('🇷🇺 Москва')).toBe(true);
    expect(hasFlags('Москва ⚡')).toBe(false);
  });
});
