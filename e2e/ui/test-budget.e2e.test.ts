/**
 * Settings → Testing against the demo world, in one page for all five languages: the traffic the
 * monitor's tests used (real figures, counted while the demo's traffic keeps testing on), the
 * daily cap saved from the page, and the notice once the cap is spent — said in each language,
 * Persian and Arabic laid out right to left.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type InProcessLab, startLab } from '../lab';
import { type AppPage, type DemoWorld, eventually, launchChromium, openApp, startWorld } from './harness';

/** The window's words this test reads, as renderer/src/i18n/locales/ writes them (the UI is reached only through the host). */
const LOCALES = {
  en: { settings: 'Settings', page: 'Testing', usage: 'Traffic used by testing', delay: 'Delay probes', capped: 'The daily cap is reached', notice: 'Testing used its daily traffic budget' },
  ru: { settings: 'Настройки', page: 'Проверки', usage: 'Трафик проверок', delay: 'Замеры задержки', capped: 'Дневной лимит достигнут', notice: 'Проверки израсходовали дневной лимит трафика' },
  fa: { settings: 'تنظیمات', page: 'آزمون‌ها', usage: 'ترافیک مصرف‌شده برای آزمون', delay: 'سنجش تأخیر', capped: 'سقف روزانه پر شده است', notice: 'آزمون‌ها سهمیهٔ روزانهٔ ترافیک' },
  ar: { settings: 'الإعدادات', page: 'الاختبارات', usage: 'حركة البيانات التي استهلكتها الاختبارات', delay: 'قياسات التأخير', capped: 'بلغت الحد اليومي', notice: 'استهلكت الاختبارات حصتها اليومية' },
  zh: { settings: '设置', page: '测试', usage: '测试使用的流量', delay: '延迟测试', capped: '已达到每日上限', notice: '测试已用完每日流量预算' },
} as const;
const en = LOCALES.en;

describe('Settings → Testing in five languages', () => {
  let lab: InProcessLab;
  let world: DemoWorld;
  let browser: Browser;
  let app: AppPage;

  beforeAll(async () => {
    lab = await startLab({ servers: 4, subscriptions: 1, seed: 5 });
    world = await startWorld({ lab });
    browser = await launchChromium();
    app = await openApp(browser, world.host.url);
  }, 90_000);

  afterAll(async () => {
    await browser?.close();
    await world?.dispose();
    await lab?.stop();
  });

  it('shows what testing used, saves a cap, and says when it is spent, in every language', async () => {
    const { page } = app;
    // The tests have run and been counted.
    await eventually('testing traffic counted', 30_000, async () => ((await world.engine.testTraffic({})).lastHour.delay.down > 0 ? true : undefined));

    // English: the cap is typed on the page and saved; with a tiny cap it is spent at once.
    await page.getByRole('button', { name: en.settings, exact: true }).click();
    let dialog = page.getByRole('dialog', { name: en.settings });
    await dialog.getByRole('tab', { name: en.page }).click();
    await expect.poll(() => dialog.getByRole('table', { name: en.usage }).count(), { timeout: 10_000 }).toBe(1);
    await dialog.getByRole('textbox', { name: /Daily cap for testing/ }).fill('0.001');
    await dialog.getByRole('button', { name: 'Save', exact: true }).click();
    await dialog.waitFor({ state: 'detached' });
    expect((await world.engine.getSnapshot({})).settings.monitor.testBudgetBytesPerDay).toBe(1000);

    for (const [language, words] of Object.entries(LOCALES)) {
      if (language !== 'en') await world.engine.setSettings({ language: language as keyof typeof LOCALES });
      await eventually(`<html lang="${language}">`, 10_000, async () => ((await page.evaluate(() => document.documentElement.lang)) === language ? true : undefined));
      const rtl = language === 'fa' || language === 'ar';
      expect(await page.evaluate(() => document.documentElement.dir)).toBe(rtl ? 'rtl' : 'ltr');
      // The notice of the spent budget, in the language's words (the size filled in).
      await expect.poll(() => page.getByText(words.notice, { exact: false }).count(), { timeout: 10_000 }).toBeGreaterThan(0);
      await page.getByRole('button', { name: words.settings, exact: true }).click();
      dialog = page.getByRole('dialog', { name: words.settings });
      await dialog.getByRole('tab', { name: words.page }).click();
      const table = dialog.getByRole('table', { name: words.usage });
      await expect.poll(() => table.count(), { timeout: 10_000 }).toBe(1);
      const rows = await table.getByRole('row').count();
      expect(rows).toBe(7);
      expect(await table.getByRole('rowheader', { name: words.delay }).count()).toBe(1);
      await expect.poll(() => dialog.getByRole('status').filter({ hasText: words.capped }).count(), { timeout: 10_000 }).toBe(1);
      if (rtl) expect(await dialog.evaluate((el) => getComputedStyle(el).direction)).toBe('rtl');
      await page.keyboard.press('Escape');
      await dialog.waitFor({ state: 'detached' });
    }
    expect(app.errors).toEqual([]);
    expect(app.refused).toEqual([]);
  }, 120_000);
});
