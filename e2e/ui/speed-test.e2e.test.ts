/**
 * The bulk speed test in the window, against the demo world, in all five languages (Persian and
 * Arabic right to left, their numbers in their own digits): Speed test → All servers starts a run
 * of the lab's real downloads, its bar shows servers done of the total, and Cancel stops every
 * download at once. Then, with every server measured behind relays capped at known rates, the
 * list sorted by speed puts them fastest first and the top bar shows the current server's figure.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type InProcessLab, startLab } from '../lab';
import { type AppPage, type DemoWorld, eventually, launchChromium, openApp, screenshot, startWorld } from './harness';

/** The window's words this test reads, as renderer/src/i18n/locales/ writes them. */
const LOCALES = {
  en: { action: 'Speed test', all: 'All servers', progress: 'Speed test progress', cancel: 'Cancel', sort: 'Download speed' },
  ru: { action: 'Тест скорости', all: 'Все серверы', progress: 'Ход теста скорости', cancel: 'Отменить', sort: 'По скорости' },
  fa: { action: 'آزمون سرعت', all: 'همهٔ سرورها', progress: 'پیشرفت آزمون سرعت', cancel: 'لغو', sort: 'سرعت دانلود' },
  ar: { action: 'اختبار السرعة', all: 'كل الخوادم', progress: 'تقدّم اختبار السرعة', cancel: 'إلغاء', sort: 'سرعة التنزيل' },
  zh: { action: '测速', all: '全部服务器', progress: '测速进度', cancel: '取消', sort: '按下载速度' },
} as const;
type Language = keyof typeof LOCALES;

/** Each lab server's cap, bytes per second: the order the list must show, slowest last. */
const RATES = [300_000, 2_400_000, 600_000, 1_200_000];

describe('the speed test in five languages', () => {
  let lab: InProcessLab;
  let world: DemoWorld;
  let browser: Browser;
  let app: AppPage;

  beforeAll(async () => {
    lab = await startLab({ servers: RATES.length, subscriptions: 1, seed: 7, latency: [5, 20] });
    for (const [i, server] of lab.info.servers.entries()) await lab.setFault(server.id, { fault: 'throttle', bytesPerSecond: RATES[i] as number });
    world = await startWorld({ lab, intervalMs: 60_000 });
    browser = await launchChromium();
    app = await openApp(browser, world.host.url);
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await world?.dispose();
    await lab?.stop();
  });

  const setLanguage = async (language: Language) => {
    await world.engine.setSettings({ language });
    await eventually(`<html lang="${language}">`, 10_000, async () => ((await app.page.evaluate(() => document.documentElement.lang)) === language ? true : undefined));
    const rtl = language === 'fa' || language === 'ar';
    expect(await app.page.evaluate(() => document.documentElement.dir)).toBe(rtl ? 'rtl' : 'ltr');
  };
  /** How the window writes `n` in the language (Persian digits in Persian): the page's own Intl. */
  const numberIn = (language: Language, n: number) => app.page.evaluate(([lang, value]) => new Intl.NumberFormat(lang as string).format(value as number), [language, n] as const);

  it('starts from the menu, shows its progress in the language, and Cancel stops every download', async () => {
    const { page } = app;
    await page.getByRole('button', { name: LOCALES.en.action }).waitFor();
    // The prober is up and every server answered, so each download really runs through its relay.
    await eventually('every server answered', 60_000, async () => {
      const { statuses } = await world.engine.getSnapshot({});
      return Object.values(statuses).length === RATES.length && Object.values(statuses).every((s) => s.delayMs !== null) ? true : undefined;
    }, 250);
    for (const language of Object.keys(LOCALES) as Language[]) {
      const words = LOCALES[language];
      await setLanguage(language);
      const total = await numberIn(language, RATES.length);
      if (language === 'fa') expect(total).toBe('۴');
      await page.getByRole('button', { name: words.action }).click();
      const menu = page.getByRole('menu');
      await menu.getByRole('menuitem', { name: new RegExp(`^${words.all}`) }).click();

      const bar = page.getByRole('progressbar', { name: words.progress });
      await bar.waitFor({ timeout: 10_000 });
      expect(await bar.getAttribute('aria-valuemax')).toBe(String(RATES.length));
      expect(await bar.getAttribute('aria-valuetext')).toContain(total);
      await screenshot(page, `speed-test-progress-${language}`);
      const running = await world.engine.getSnapshot({});
      expect(running.speedTest).toMatchObject({ running: true, total: RATES.length, bytesPerServer: 10_000_000, parallel: 2 });
      // The downloads are under way through the relays before the cancel.
      await eventually('downloads through the relays', 10_000, async () => {
        const counters = await lab.counters();
        return lab.info.servers.some((s) => (counters.servers[s.id]?.active ?? 0) > 0) ? true : undefined;
      });

      await page.getByRole('button', { name: words.cancel, exact: true }).click();
      await bar.waitFor({ state: 'detached', timeout: 5_000 });
      const after = await world.engine.getSnapshot({});
      expect(after.speedTest).toMatchObject({ running: false, ended: 'cancelled' });
      // Cut short: the 10 MB downloads at these rates take 4–33 s, the cancel came within seconds.
      expect(after.speedTest.done).toBeLessThan(RATES.length);
    }
    expect(app.errors).toEqual([]);
    expect(app.refused).toEqual([]);
  }, 180_000);

  it('sorts the list by the measured speed, fastest first, and the top bar shows the current server’s', async () => {
    const { page } = app;
    await world.engine.startSpeedTest({ scope: { kind: 'all' }, bytes: 400_000 });
    const done = await eventually('every server measured', 60_000, async () => {
      const snapshot = await world.engine.getSnapshot({});
      return snapshot.speedTest.ended === 'finished' ? snapshot : undefined;
    }, 250);
    const ids = done.subscriptions.flatMap((s) => s.servers.map((x) => x.id));
    const rateOf = (id: string) => RATES[lab.info.servers.findIndex((s) => s.id === world.labIdOf(id))] as number;
    const fastestFirst = [...ids].sort((a, b) => rateOf(b) - rateOf(a));
    for (const id of ids) expect(done.statuses[id]?.speedTest?.bytesPerSecond, id).toBeGreaterThan(0);

    for (const language of Object.keys(LOCALES) as Language[]) {
      await setLanguage(language);
      await page.getByRole('button', { name: LOCALES[language].sort, exact: true }).click();
      await expect.poll(() => page.locator('[role="listitem"][data-server-id]').evaluateAll((rows) => rows.map((row) => row.getAttribute('data-server-id'))), { timeout: 10_000 }).toEqual(fastestFirst);
      // The current server's figure beside its name, in the language's digits.
      const current = (await world.engine.getSnapshot({})).connection.serverId;
      expect(current, 'the demo connects at start').not.toBeNull();
      {
        const figure = page.locator('.connection-status .speed-figure .speed-value');
        await expect.poll(() => figure.count(), { timeout: 10_000 }).toBe(1);
        const text = (await figure.textContent()) ?? '';
        if (language === 'fa') expect(text).toMatch(/[۰-۹]/);
        if (language === 'fa' || language === 'ar') await screenshot(page, `speed-test-sorted-${language}`);
        if (language === 'en') expect(text).toMatch(/\d/);
      }
    }
    expect(app.errors).toEqual([]);
  }, 180_000);
});
