import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CJK_FACES_FILE, CJK_SOURCE_FONT, CJK_UI_FONT_FILE, catalogueStrings, cjkCodePoints, currentCjkFacesCss, formattedStrings, unicodeRange } from './cjk-faces';
import { woff2CodePoints } from './woff2-cmap';

const parseRange = (range: string) =>
  range.split(',').flatMap((part) => {
    const [from, to = from] = part.trim().replace(/^U\+/i, '').split('-') as [string, string?];
    const out: number[] = [];
    for (let c = parseInt(from, 16); c <= parseInt(to, 16); c++) out.push(c);
    return out;
  });

describe('the bundled Chinese face', () => {
  it('names every CJK character of the window’s own words (run `npx tsx scripts/cjk-faces.ts` after changing the Chinese)', () => {
    expect(readFileSync(CJK_FACES_FILE, 'utf8')).toBe(currentCjkFacesCss());
  });

  it('holds a glyph for every character its unicode-range promises', () => {
    const range = /font-family: 'Steadfast Chinese';[^}]*unicode-range: ([^;]+);/.exec(readFileSync(CJK_FACES_FILE, 'utf8'))![1]!;
    const promised = parseRange(range);
    const held = woff2CodePoints(readFileSync(CJK_UI_FONT_FILE));
    expect(promised.length).toBeGreaterThan(500);
    expect(promised.filter((c) => !held.has(c)).map((c) => String.fromCodePoint(c))).toEqual([]);
  });

  it('covers the words that drew as boxes from the sliced font, and what Intl writes in Chinese', () => {
    const covered = new Set(cjkCodePoints(catalogueStrings()));
    for (const word of ['断开', '已连接', '代理', '规则', '添加订阅', '服务器', '毫秒', '瑞士', '韩国', '年月日', '昨天'])
      expect([...word].filter((c) => !covered.has(c.codePointAt(0)!)), word).toEqual([]);
    expect(formattedStrings('zh')).toContain('瑞士');
  });

  it('cuts its file from a source that holds every one of those characters', () => {
    const source = woff2CodePoints(readFileSync(CJK_SOURCE_FONT));
    expect(cjkCodePoints(catalogueStrings()).filter((c) => !source.has(c)).map((c) => String.fromCodePoint(c))).toEqual([]);
  });
});

describe('the CJK characters of a text', () => {
  it.each([
    ['Han, CJK and full-width punctuation', '已连接。（代理）：', '。代已接理连（）：'],
    ['no Latin, digits, curly quotes or the ellipsis: the text fonts draw those', 'VPN 2 “x”… 1,024', ''],
    ['each character once, in code point order', '连连接', '接连'],
  ])('%s', (_, text, expected) => {
    expect(String.fromCodePoint(...cjkCodePoints([text]))).toBe(expected);
  });
});

describe('a unicode-range from code points', () => {
  it.each([
    [[0x4e00], 'U+4e00'],
    [[0x4e00, 0x4e01, 0x4e02], 'U+4e00-4e02'],
    [[0x3001, 0x3002, 0x4e00, 0x4e09, 0x4e0a], 'U+3001-3002,U+4e00,U+4e09-4e0a'],
    [[], ''],
  ])('%j → %s', (codePoints, range) => {
    expect(unicodeRange(codePoints)).toBe(range);
  });
});

describe('reading a WOFF2 font’s characters', () => {
  it('finds in each of fontsource’s slices only its own characters', () => {
    const files = join(CJK_SOURCE_FONT, '..');
    const slice118 = woff2CodePoints(readFileSync(join(files, 'noto-sans-sc-118-400-normal.woff2')));
    const slice115 = woff2CodePoints(readFileSync(join(files, 'noto-sans-sc-115-400-normal.woff2')));
    expect(slice118.has('开'.codePointAt(0)!)).toBe(true);
    expect(slice115.has('开'.codePointAt(0)!)).toBe(false);
    expect(slice115.has('断'.codePointAt(0)!)).toBe(true);
  });

  it('refuses a file that is no WOFF2', () => {
    expect(() => woff2CodePoints(Buffer.from('wOFF0000'))).toThrow(/not a WOFF2 file/);
  });
});
