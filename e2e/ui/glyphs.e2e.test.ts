/**
 * Every glyph drawn from the app's own fonts, in one page: each text in the window that holds an
 * emoji (flags in names, 🧪, the Auto timeline's entries, the "may return" note, the drop-downs)
 * is drawn by the bundled colour emoji font, Chinese by the bundled Noto Sans SC and Persian by
 * Vazirmatn, as Chromium itself reports the fonts it used (DevTools' CSS.getPlatformFontsForNode):
 * never a box or a letter pair, whatever the machine has installed. The font files come from the
 * host, as the page's other files do. And in Persian and Arabic, the addresses inside a sentence
 * keep their own left-to-right order, as laid out on the screen.
 *
 * Chinese is counted glyph by glyph: every string of the Chinese catalogue, laid out whole as the
 * window lays out its words, must have each of its CJK characters drawn by the bundled face. A
 * font split into many unicode-range faces of one family drew the first character of a run and
 * boxes after it ("断开" as 断 and a box), which a check of "some glyph from the font" let through.
 */
import { readFileSync } from 'node:fs';
import type { Browser, CDPSession, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AppPage, currentRowId, type DemoWorld, eventually, launchChromium, openApp, screenshot, STRINGS, startWorld } from './harness';

const EMOJI = '\\p{Regional_Indicator}|\\p{Extended_Pictographic}';
/** What only a CJK font draws: Han, CJK punctuation, vertical and full-width forms. */
const CJK = '[\\p{Script=Han}\\u3000-\\u303f\\ufe10-\\ufe1f\\ufe30-\\ufe4f\\uff00-\\uffef]';
const cjkCount = (text: string) => text.match(new RegExp(CJK, 'gu'))?.length ?? 0;

/** Every string literal of the Chinese catalogue that holds a CJK character (the file, read as text). */
function chineseCatalogue(): string[] {
  const source = readFileSync(new URL('../../renderer/src/i18n/locales/zh.ts', import.meta.url), 'utf8');
  const strings = [...source.matchAll(/'((?:[^'\\\n]|\\.)*)'/g)].map((m) => m[1]!.replace(/\\(.)/g, '$1'));
  return [...new Set(strings)].filter((text) => cjkCount(text) > 0);
}

interface Probe {
  index: number;
  text: string;
}

/** Marks the parent of every visible text node matching `pattern`, and lists them. */
async function markTexts(page: Page, pattern: string): Promise<Probe[]> {
  return page.evaluate(async (source) => {
    const match = new RegExp(source, 'u');
    const found: { index: number; text: string }[] = [];
    const loads: Promise<unknown>[] = [];
    Array.from(document.querySelectorAll('[data-glyph-probe]')).forEach((old) => old.removeAttribute('data-glyph-probe'));
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const parent = node.parentElement;
      if (!parent || !match.test(node.textContent ?? '') || parent.closest('option, script, style')) continue;
      if (parent.getClientRects().length === 0) continue;
      if (!parent.hasAttribute('data-glyph-probe')) {
        parent.setAttribute('data-glyph-probe', String(found.length));
        // The fonts Chromium reports for an element are those of its own text nodes, all of them.
        const ownText = Array.from(parent.childNodes)
          .filter((child) => child.nodeType === Node.TEXT_NODE)
          .map((child) => child.textContent ?? '')
          .join('');
        found.push({ index: found.length, text: ownText });
        // Text that appeared a moment ago may still be drawn by the fallback while its subset loads.
        const style = getComputedStyle(parent);
        loads.push(document.fonts.load(`${style.fontWeight} ${style.fontSize} ${style.fontFamily}`, node.textContent ?? ''));
      }
    }
    await Promise.all(loads);
    await new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)));
    return found;
  }, pattern);
}

/** The fonts Chromium drew each marked element's text with: family name and whether it is a web font. */
async function fontsOf(cdp: CDPSession, probes: Probe[]): Promise<Map<number, { familyName: string; isCustomFont: boolean; glyphCount: number }[]>> {
  const { root } = await cdp.send('DOM.getDocument', { depth: -1 });
  const out = new Map<number, { familyName: string; isCustomFont: boolean; glyphCount: number }[]>();
  for (const probe of probes) {
    const { nodeId } = await cdp.send('DOM.querySelector', { nodeId: root.nodeId, selector: `[data-glyph-probe="${probe.index}"]` });
    const { fonts } = await cdp.send('CSS.getPlatformFontsForNode', { nodeId });
    out.set(probe.index, fonts);
  }
  return out;
}

describe('every glyph drawn from the bundled fonts', () => {
  let world: DemoWorld;
  let browser: Browser;
  let app: AppPage;
  let page: Page;
  let cdp: CDPSession;
  const fontFiles: string[] = [];

  beforeAll(async () => {
    world = await startWorld();
    browser = await launchChromium();
    app = await openApp(browser, world.host.url, { height: 1400 });
    page = app.page;
    page.on('requestfinished', (request) => {
      if (/\.woff2?(\?|$)/.test(request.url())) fontFiles.push(request.url());
    });
    await page.locator('[role="listitem"][data-server-id]').first().waitFor();
    cdp = await page.context().newCDPSession(page);
    await cdp.send('DOM.enable');
    await cdp.send('CSS.enable');
  });

  afterAll(async () => {
    await browser?.close();
    await world?.dispose();
  });

  /**
   * Every visible text matching `pattern` is drawn (in part) by the bundled `family`; with
   * `glyphsNeeded`, by at least that many of its glyphs, so no character of the text fell to a box.
   */
  const expectDrawnBy = async (pattern: string, family: string, glyphsNeeded?: (text: string) => number) => {
    await page.evaluate(async () => {
      await document.fonts.ready;
    });
    const probes = await markTexts(page, pattern);
    expect(probes.length, `texts matching ${pattern}`).toBeGreaterThan(0);
    const fonts = await fontsOf(cdp, probes);
    // Chromium names a face by its own family and weight ("Vazirmatn SemiBold").
    const glyphsBy = (p: Probe) => (fonts.get(p.index) ?? []).filter((f) => f.familyName.startsWith(family) && f.isCustomFont).reduce((sum, f) => sum + f.glyphCount, 0);
    const missing = probes.filter((p) => glyphsBy(p) === 0 || (glyphsNeeded !== undefined && glyphsBy(p) < glyphsNeeded(p.text)));
    expect(missing.map((p) => `${p.text} → ${glyphsBy(p)} glyphs of ${family}: ${JSON.stringify(fonts.get(p.index))}`)).toEqual([]);
    return probes;
  };

  it('flags and other emoji in names, rows and the Auto timeline, in colour from the bundled emoji font', async () => {
    // Auto leaves a blackholed server: the timeline names both, flag first, and the note says which may return.
    const from = (await world.engine.getSnapshot({})).connection.serverId;
    const lab = page.getByRole('region', { name: STRINGS.en.lab });
    await lab.getByRole('button', { name: STRINGS.en.blackhole }).click();
    await eventually('Auto switches away', 30_000, async () => {
      const id = await currentRowId(page);
      return id && id !== from && (await page.locator('.decision.tone-switch').count()) > 0 ? true : undefined;
    });
    await lab.getByRole('button', { name: STRINGS.en.clearFaults }).click();
    const probes = await expectDrawnBy(EMOJI, 'Noto Color Emoji');
    const names = (await world.engine.getSnapshot({})).subscriptions.flatMap((s) => [s.name, ...s.servers.map((x) => x.name)]);
    const emojiInNames = new Set(names.flatMap((n) => [...n.matchAll(new RegExp(`(?:${EMOJI})+`, 'gu'))].map((m) => m[0])));
    const emojiOnPage = probes.map((p) => p.text).join(' ');
    // The rows and dialog titles keep their SVG flags (country-flag-icons): a flag is drawn either way.
    const svgFlags = new Set(await page.locator('[data-country]').evaluateAll((flags) => flags.map((f) => f.getAttribute('data-country'))));
    const countryOf = (emoji: string) => [...emoji].map((c) => String.fromCharCode(c.codePointAt(0)! - 0x1f1e6 + 65)).join('');
    const undrawn = [...emojiInNames].filter((e) => !emojiOnPage.includes(e) && !(/^\p{Regional_Indicator}{2}$/u.test(e) && svgFlags.has(countryOf(e))));
    expect(undrawn).toEqual([]);
    // The drop-downs: a native option cannot hold a picture, so its font carries the emoji.
    const options = await page.evaluate(async (source) => {
      const match = new RegExp(source, 'u');
      const found = Array.from(document.querySelectorAll('option')).filter((o) => match.test(o.textContent ?? ''));
      return Promise.all(
        found.map(async (o) => {
          const family = getComputedStyle(o).fontFamily;
          const text = o.textContent ?? '';
          // The emoji face's own files, loaded for the option's text: what the open list draws with.
          const faces = await document.fonts.load('14px "Steadfast Emoji"', text);
          return { text, family, loaded: faces.length > 0 && document.fonts.check('14px "Steadfast Emoji"', text) };
        }),
      );
    }, EMOJI);
    for (const option of options) expect(option, option.text).toMatchObject({ family: expect.stringMatching(/^"Steadfast Emoji"/), loaded: true });
    await screenshot(page, 'glyphs-en');
  });

  it('Persian in Vazirmatn and Chinese in Noto Sans SC, from the host', async () => {
    await world.engine.setSettings({ language: 'fa' });
    await page.locator('html[lang="fa"]').waitFor();
    await expectDrawnBy('[\\u0600-\\u06ff]', 'Vazirmatn');
    await world.engine.setSettings({ language: 'zh' });
    await page.locator('html[lang="zh"]').waitFor();
    await expectDrawnBy(CJK, 'Noto Sans SC', cjkCount);
    await expectDrawnBy(EMOJI, 'Noto Color Emoji');
    await screenshot(page, 'glyphs-zh');
    await world.engine.setSettings({ language: 'en' });
    expect(fontFiles.length).toBeGreaterThan(0);
    const host = new URL(world.host.url).host;
    expect(fontFiles.filter((url) => new URL(url).host !== host)).toEqual([]);
    expect(app.refused).toEqual([]);
    expect(app.errors).toEqual([]);
  });

  it('every CJK character of every Chinese catalogue string, laid out whole, from the bundled face', async () => {
    // And a provider's name in characters the window's own words do not hold (the whole-file face).
    const strings = [...chineseCatalogue(), '沪港专线 IPLC 鑫淼 · 蒙特利尔'];
    expect(strings.length).toBeGreaterThan(300);
    const characters = new Set(strings.flatMap((text) => text.match(new RegExp(CJK, 'gu')) ?? []));
    expect(characters.size).toBeGreaterThan(500);
    await world.engine.setSettings({ language: 'zh' });
    await page.locator('html[lang="zh"]').waitFor();
    // Each string as one run of the window's own text, in the window's font and language.
    await page.evaluate((texts) => {
      const box = document.createElement('div');
      box.id = 'catalogue-probe';
      for (const text of texts) box.append(Object.assign(document.createElement('div'), { textContent: text }));
      document.body.append(box);
    }, strings);
    try {
      const probes = await expectDrawnBy(CJK, 'Noto Sans SC', cjkCount);
      const drawn = new Set(probes.flatMap((p) => p.text.match(new RegExp(CJK, 'gu')) ?? []));
      expect([...characters].filter((c) => !drawn.has(c))).toEqual([]);
    } finally {
      await page.evaluate(() => document.getElementById('catalogue-probe')?.remove());
      await world.engine.setSettings({ language: 'en' });
    }
  });

  /** The Routing page's hint in `language`: its addresses, as laid out on the screen. */
  const routingHintIn = async (language: 'fa' | 'ar', labels: { settings: string; routing: string }) => {
    await world.engine.setSettings({ language });
    await page.locator(`html[lang="${language}"]`).waitFor();
    await page.getByRole('button', { name: labels.settings, exact: true }).click();
    await page.getByRole('tab', { name: labels.routing }).click();
    const examples = ['192.168.1.0/24', '2001:db8::/32', '203.0.113.7'];
    await page.locator('bdi.technical', { hasText: examples[0] }).first().waitFor();
    const laidOut = await page.evaluate((tokens) => {
      return tokens.map((token) => {
        const bdi = Array.from(document.querySelectorAll('bdi.technical')).find((b) => b.textContent === token)!;
        const text = bdi.firstChild!;
        const range = document.createRange();
        const charX = (i: number) => {
          range.setStart(text, i);
          range.setEnd(text, i + 1);
          return range.getBoundingClientRect().x;
        };
        const xs = [...token].map((_, i) => charX(i));
        return { token, left: bdi.getBoundingClientRect().left, leftToRight: xs.every((x, i) => i === 0 || x > xs[i - 1]!), direction: getComputedStyle(bdi).direction };
      });
    }, examples);
    await screenshot(page, `bidi-routing-${language}`);
    await page.keyboard.press('Escape');
    return laidOut;
  };

  it.each([
    ['fa', { settings: 'تنظیمات', routing: 'مسیریابی' }],
    ['ar', { settings: 'الإعدادات', routing: 'التوجيه' }],
  ] as const)('in %s, each address of the IP example is whole, left to right, and the three read right to left in order', async (language, labels) => {
    const laidOut = await routingHintIn(language, labels);
    for (const token of laidOut) expect(token, token.token).toMatchObject({ leftToRight: true, direction: 'ltr' });
    // A right-to-left sentence: the first example is rightmost.
    expect(laidOut[0]!.left).toBeGreaterThan(laidOut[1]!.left);
    expect(laidOut[1]!.left).toBeGreaterThan(laidOut[2]!.left);
    await world.engine.setSettings({ language: 'en' });
  });
});

