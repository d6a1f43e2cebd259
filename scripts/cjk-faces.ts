/**
 * Writes renderer/src/fonts/cjk-faces.css and the font file it names, so every Chinese character
 * the window can show is drawn from the app's own files on a machine without a CJK font.
 *
 * Why not @fontsource/noto-sans-sc's slices alone: they are a hundred faces of one family, each
 * with its unicode-range, and Chromium walks a family's faces once per run of text, in order: after
 * the face of the run's first character, a later character whose face came earlier in that walk
 * goes to the next family in the stack, which on such a machine draws an empty box ("断开" drew 断
 * and a box, "添加订阅" 添 and three). So:
 * - 'Steadfast Chinese': one face holding exactly the CJK characters of the window's own words,
 *   cut from Noto Sans SC: the catalogue in every language, the language menu's names, and what
 *   the window's formatters write through Intl (country names, dates, units, "昨天"); any of them
 *   is one run in one face, and the file is small enough to load at once (~90 KB);
 * - 'Steadfast Chinese Text': one face of Noto Sans SC's whole simplified-Chinese file (7,946
 *   characters, 1.1 MB) for text the catalogue does not hold, such as a provider's server names,
 *   fetched only when a character the first face lacks is on the page;
 * - fontsource's own slices (renderer/src/app-start.tsx) after both, for the rare characters outside that file.
 *
 * Run `npx tsx scripts/cjk-faces.ts` after a change to the catalogue's Chinese (or an upgrade of
 * @fontsource/noto-sans-sc); scripts/cjk-faces.test.ts fails until then. The cut needs the
 * `subset-font` dev dependency (HarfBuzz's hb-subset); the test does not.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { formattersFor } from '../renderer/src/format/format';
import { nameList } from '../renderer/src/format/reasons';
import { LANGUAGE_NAMES } from '../renderer/src/i18n';
import { CATALOGUE } from '../renderer/src/i18n/catalogue';

export const CJK_UI_FACE = 'Steadfast Chinese';
export const CJK_TEXT_FACE = 'Steadfast Chinese Text';

/** Characters that only a CJK font draws: Han, CJK punctuation, vertical and full-width forms. */
const CJK = /[\p{Script=Han}\u3000-\u303f\ufe10-\ufe1f\ufe30-\ufe4f\uff00-\uffef]/u;
/** The blocks the text face is asked for: what a Chinese name may hold. */
const CJK_TEXT_RANGE = 'U+2e80-2fdf,U+3000-303f,U+3100-312f,U+3190-31ff,U+3200-33ff,U+3400-4dbf,U+4e00-9fff,U+f900-faff,U+fe10-fe1f,U+fe30-fe4f,U+ff00-ffef';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
export const CJK_FACES_FILE = join(root, 'renderer/src/fonts/cjk-faces.css');
export const CJK_UI_FONT_NAME = 'steadfast-chinese-400.woff2';
export const CJK_UI_FONT_FILE = join(root, 'renderer/src/fonts', CJK_UI_FONT_NAME);
const NOTO_SC_FILES = 'node_modules/@fontsource/noto-sans-sc/files';
export const CJK_SOURCE_FONT = join(root, NOTO_SC_FILES, 'noto-sans-sc-chinese-simplified-400-normal.woff2');
const CJK_SOURCE_URL = `../../../${NOTO_SC_FILES}/noto-sans-sc-chinese-simplified-400-normal.woff2`;

function stringsOf(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (value && typeof value === 'object') return Object.values(value).flatMap(stringsOf);
  return [];
}

const DAY_MS = 86_400_000;
const A = 'A'.charCodeAt(0);

/** What the window's formatters write in `language`: every country, month, unit and relative day. */
export function formattedStrings(language: string): string[] {
  const format = formattersFor(language);
  const out: string[] = [];
  const regions = new Intl.DisplayNames([language], { type: 'region', fallback: 'none' });
  for (let a = 0; a < 26; a++) for (let b = 0; b < 26; b++) out.push(regions.of(String.fromCharCode(A + a, A + b)) ?? '');
  const start = Date.UTC(2030, 0, 1, 9, 30);
  for (let month = 0; month < 12; month++) {
    const at = start + month * 31 * DAY_MS;
    out.push(format.date(at), format.dateTime(at), format.time(at), format.clock(at), format.day(new Date(at).toISOString().slice(0, 10)));
  }
  for (let power = 0; power < 15; power++) out.push(format.bytes(10 ** power), format.rate(10 ** power));
  for (const seconds of [1, 30, 60, 90, 600, 3600, 3660, 86_400 * 2]) out.push(format.duration(seconds * 1000), format.ms(seconds));
  for (const days of [-3, -2, -1, 0, 1, 2, 3]) out.push(format.relative(start + days * DAY_MS, start));
  for (const seconds of [-3000, -600, -60, -10, 0, 10, 60, 600, 3000]) out.push(format.relative(start + seconds * 1000, start), format.relative(start + seconds * 60_000, start));
  out.push(format.percent(0.5), format.number(1234.5, 1), nameList(['a', 'b'], language), nameList(['a', 'b', 'c'], language));
  return out;
}

/** Every string the window shows in its own words: the catalogue, the language names and the formatters' output, in all five languages. */
export function catalogueStrings(): string[] {
  return [...stringsOf(CATALOGUE), ...Object.values(LANGUAGE_NAMES), ...Object.keys(CATALOGUE).flatMap(formattedStrings)];
}

/** The distinct CJK code points of `texts`, in order. */
export function cjkCodePoints(texts: string[]): number[] {
  const found = new Set<number>();
  for (const text of texts) for (const char of text) if (CJK.test(char)) found.add(char.codePointAt(0)!);
  return [...found].sort((a, b) => a - b);
}

/** Sorted code points as a CSS unicode-range, neighbours joined into spans. */
export function unicodeRange(sorted: number[]): string {
  const parts: string[] = [];
  for (let i = 0; i < sorted.length; ) {
    let j = i;
    while (j + 1 < sorted.length && sorted[j + 1] === sorted[j]! + 1) j++;
    const from = sorted[i]!.toString(16);
    parts.push(i === j ? `U+${from}` : `U+${from}-${sorted[j]!.toString(16)}`);
    i = j + 1;
  }
  return parts.join(',');
}

export function cjkFacesCss(codePoints: number[]): string {
  const face = (family: string, url: string, range: string) =>
    // block: on a machine without a CJK font the fallback is an empty box, worse than a moment of nothing.
    `@font-face {\n  font-family: '${family}';\n  font-style: normal;\n  font-display: block;\n  font-weight: 400;\n  src: url(${url}) format('woff2');\n  unicode-range: ${range};\n}\n`;
  return [
    '/* Generated by scripts/cjk-faces.ts from the catalogue and @fontsource/noto-sans-sc: do not edit. */\n',
    face(CJK_UI_FACE, `./${CJK_UI_FONT_NAME}`, unicodeRange(codePoints)),
    face(CJK_TEXT_FACE, CJK_SOURCE_URL, CJK_TEXT_RANGE),
  ].join('\n');
}

export function currentCjkFacesCss(): string {
  return cjkFacesCss(cjkCodePoints(catalogueStrings()));
}

type Subset = (font: Buffer, text: string, options: { targetFormat: 'woff2' }) => Promise<Buffer>;

/** Cuts the UI face from Noto Sans SC and writes it with its CSS. */
export async function writeCjkFaces(subset: Subset): Promise<{ characters: number; bytes: number }> {
  const codePoints = cjkCodePoints(catalogueStrings());
  const font = await subset(readFileSync(CJK_SOURCE_FONT), String.fromCodePoint(...codePoints), { targetFormat: 'woff2' });
  writeFileSync(CJK_UI_FONT_FILE, font);
  writeFileSync(CJK_FACES_FILE, cjkFacesCss(codePoints));
  return { characters: codePoints.length, bytes: font.length };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  // Imported by name at run time: only this maintenance step needs HarfBuzz, never the build or the tests.
  const subsetFontModule: string = 'subset-font';
  const { default: subset } = (await import(subsetFontModule)) as { default: Subset };
  const { characters, bytes } = await writeCjkFaces(subset);
  console.log(`wrote ${CJK_FACES_FILE} and ${CJK_UI_FONT_FILE}: ${characters} characters, ${bytes} bytes`);
}
