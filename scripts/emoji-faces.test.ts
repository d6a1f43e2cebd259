import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { currentEmojiFacesCss, EMOJI_FACES_FILE, emojiFacesCss } from './emoji-faces';

describe('the bundled emoji faces', () => {
  it('match the installed @fontsource/noto-color-emoji (run `npx tsx scripts/emoji-faces.ts` after an upgrade)', () => {
    expect(readFileSync(EMOJI_FACES_FILE, 'utf8')).toBe(currentEmojiFacesCss());
  });

  it('keep only the emoji planes: digits, #, ©, arrows and the joiners stay with the text font', () => {
    const source = `@font-face {
  src: url(./files/a.woff2) format('woff2'), url(./files/a.woff) format('woff');
  unicode-range: U+23,U+2a,U+30-39,U+a9,U+200d,U+2194-2199,U+fe0f,U+1f170-1f171,U+1f1e6-1f1ff;
}
@font-face {
  src: url(./files/b.woff2) format('woff2');
  unicode-range: U+2600-26ff;
}`;
    const css = emojiFacesCss(source, 'FILES');
    expect(css.match(/unicode-range: [^;]+;/g)).toEqual(['unicode-range: U+1f170-1f171,U+1f1e6-1f1ff;']);
    expect(css).toContain("src: url(FILES/a.woff2) format('woff2');");
    expect(css).not.toContain('b.woff2');
  });
});
