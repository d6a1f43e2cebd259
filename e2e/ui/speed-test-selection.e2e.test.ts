/**
 * The speed test for one server from its row menu, and for several selected rows, in the window
 * against the demo world, in all five languages (Persian and Arabic right to left, their numbers
 * in their own digits): right-click a row → Speed test measures that server alone; Ctrl-click and
 * Shift-click select a range, the selection's bar counts it and its Speed test measures exactly
 * those servers, the row menu of a selected row offers the selection; Space and Shift+arrow select
 * from the keyboard, Escape clears. Each run is the lab's real download, cancelled from the window.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type InProcessLab, startLab } from '../lab';
import { type AppPage, type DemoWorld, eventually, launchChromium, openApp, screenshot, startWorld } from './harness';

/** The window's words this test reads, as renderer/src/i18n/locales/ writes them. */
const LOCALES = {
  en: { rowSpeed: 'Speed test', selectedSpeed: 'Speed test the selected', bar: 'Selected servers', barSpeed: 'Speed test', progress: 'Speed test progress', cancel: 'Cancel', count: 'Selected: ' },
  ru: { rowSpeed: 'Тест скорости', selectedSpeed: 'Тест скорости выделенных', bar: 'Выделенные серверы', barSpeed: 'Тест скорости', progress: 'Ход теста скорости', cancel: 'Отменить', count: 'Выделено: ' },
  fa: { rowSpeed: 'آزمون سرعت', selectedSpeed: 'آزمون سرعت سرورهای انتخاب‌شده', bar: 'سرورهای انتخاب‌شده', barSpeed: 'آزمون سرعت', progress: 'پیشرفت آزمون سرعت', cancel: 'لغو', count: 'انتخاب‌شده: ' },
  ar: { rowSpeed: 'اختبار السرعة', selectedSpeed: 'اختبار سرعة الخوادم المحددة', bar: 'الخوادم المحددة', barSpeed: 'اختبار السرعة', progress: 'تقدّم اختبار السرعة', cancel: 'إلغاء', count: 'المحدد: ' },
  zh: { rowSpeed: '测速', selectedSpeed: '测速选中的服务器', bar: '选中的服务器', barSpeed: '测速', progress: '测速进度', cancel: '取消', count: '已选中：' },
} as const;
type Language = keyof typeof LOCALES;

const SERVERS = 4;

describe('the speed test from a row and for a selection, in five languages', () => {
  let lab: InProcessLab;
  let world: DemoWorld;
  let browser: Browser;
  let app: AppPage;

  beforeAll(async () => {
    lab = await startLab({ servers: SERVERS, subscriptions: 1, seed: 11, latency: [5, 20] });
    // Slow enough that a 10 MB download is still running when the test cancels it.
    for (const server of lab.info.servers) await lab.setFault(server.id, { fault: 'throttle', bytesPerSecond: 400_000 });
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
    expect(await app.page.evaluate(() => document.documentElement.dir)).toBe(language === 'fa' || language === 'ar' ? 'rtl' : 'ltr');
  };
  const numberIn = (language: Language, n: number) => app.page.evaluate(([lang, value]) => new Intl.NumberFormat(lang as string).format(value as number), [language, n] as const);
  const row = (id: string) => app.page.locator(`[role="listitem"][data-server-id="${id}"]`);
  const selectedIds = () => app.page.locator('[role="listitem"][data-selected="true"]').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-server-id')));
  /** The run the host started: its servers, then it is cancelled from the window and has stopped. */
  const runAndCancel = async (language: Language, expected: string[]) => {
    const running = await eventually('the speed test runs', 10_000, async () => {
      const snapshot = await world.engine.getSnapshot({});
      return snapshot.speedTest.running ? snapshot.speedTest : undefined;
    }, 100);
    expect(running.total).toBe(expected.length);
    // The downloads go through the expected servers' relays, and through no other: 1.5 s at
    // 400 KB/s moves far more through a downloading relay than a monitor probe ever does.
    const expectedRelays = new Set(expected.map((id) => world.labIdOf(id)));
    const before = await lab.counters();
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const after = await lab.counters();
    const through = lab.info.servers.filter((s) => (after.servers[s.id]?.bytesDown ?? 0) - (before.servers[s.id]?.bytesDown ?? 0) > 200_000).map((s) => s.id);
    expect(through.length).toBe(Math.min(2, expected.length));
    expect([...through].filter((id) => !expectedRelays.has(id))).toEqual([]);
    const bar = app.page.getByRole('progressbar', { name: LOCALES[language].progress });
    await bar.waitFor({ timeout: 10_000 });
    await app.page.getByRole('button', { name: LOCALES[language].cancel, exact: true }).click();
    // Stopped in the host and in the window (the next run may start from the window).
    await bar.waitFor({ state: 'detached', timeout: 5_000 });
    expect((await world.engine.getSnapshot({})).speedTest).toMatchObject({ running: false, ended: 'cancelled' });
  };

  it('a row’s menu runs it for that server; a selection runs it for exactly the servers selected', async () => {
    const { page } = app;
    await eventually('every server answered', 60_000, async () => {
      const { statuses } = await world.engine.getSnapshot({});
      return Object.values(statuses).length === SERVERS && Object.values(statuses).every((s) => s.delayMs !== null) ? true : undefined;
    }, 250);
    const ids = (await world.engine.getSnapshot({})).subscriptions.flatMap((s) => s.servers.map((x) => x.id));
    await row(ids[0]!).waitFor();
    for (const language of Object.keys(LOCALES) as Language[]) {
      const words = LOCALES[language];
      await setLanguage(language);

      // One server from its row menu.
      await row(ids[1]!).click({ button: 'right' });
      await page.getByRole('menu').getByRole('menuitem', { name: words.rowSpeed, exact: true }).click();
      await runAndCancel(language, [ids[1]!]);

      // Ctrl-click the first, Shift-click the third: three selected, nothing connected by it.
      const connectedBefore = (await world.engine.getSnapshot({})).connection.serverId;
      await row(ids[0]!).click({ modifiers: ['ControlOrMeta'] });
      await row(ids[2]!).click({ modifiers: ['Shift'] });
      expect(await selectedIds()).toEqual(ids.slice(0, 3));
      expect((await world.engine.getSnapshot({})).connection.serverId).toBe(connectedBefore);
      const bar = page.getByRole('group', { name: words.bar });
      expect(await bar.textContent()).toContain(`${words.count}${await numberIn(language, 3)}`);
      if (language === 'fa' || language === 'ar') await screenshot(page, `speed-test-selection-${language}`);

      // The selection's row menu offers the selection; its bar starts the same run.
      await row(ids[2]!).click({ button: 'right' });
      const forSelection = page.getByRole('menu').getByRole('menuitem', { name: new RegExp(`^${words.selectedSpeed}`) });
      expect(await forSelection.textContent()).toContain(await numberIn(language, 3));
      await forSelection.click();
      await runAndCancel(language, ids.slice(0, 3));
      await bar.getByRole('button', { name: words.barSpeed, exact: true }).click();
      await runAndCancel(language, ids.slice(0, 3));

      // From the keyboard: Escape clears, Space selects, Shift+arrow extends.
      await row(ids[0]!).focus();
      await page.keyboard.press('Escape');
      expect(await selectedIds()).toEqual([]);
      await page.keyboard.press(' ');
      await page.keyboard.press('Shift+ArrowDown');
      expect(await selectedIds()).toEqual(ids.slice(0, 2));
      await page.keyboard.press('Escape');
      expect(await selectedIds()).toEqual([]);
      expect(await bar.count()).toBe(0);
    }
    expect(app.errors).toEqual([]);
    expect(app.refused).toEqual([]);
  }, 240_000);
});
