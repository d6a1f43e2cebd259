/**
 * Settings → Apps in the real UI against the real engine of the demo world, in all five languages
 * (Persian and Arabic right to left): a person opens the page, chooses "these apps bypass the
 * VPN", picks a running program from the list and names an app by a path this machine does not
 * have (kept, and marked as not installed), switches to "only these apps use the VPN", saves, and
 * the engine's settings hold both lists; opened again, the page shows them as saved, and a removed
 * entry is gone from the engine's list. The page is measured for overlap and clipping with the
 * lists filled, at the window's usual size and at 900 × 600.
 *
 * The running program is the test's own: a copy of `sleep` under a name of its own, so the engine
 * finds it in /proc as it would any program the user has open.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { measureBoxes, readsLeftToRight } from './boxes';
import { type AppPage, type DemoWorld, eventually, launchChromium, openApp, screenshot, startWorld } from './harness';

/** The window's words this test reads, as renderer/src/i18n/locales/ writes them. */
const LOCALES = {
  en: { noMatch: (filter: string) => `No app here matches “${filter}”.`, settings: 'Settings', save: 'Save', page: 'Apps', bypass: 'These apps bypass the VPN', only: 'Only these apps use the VPN', empty: 'No apps in this list yet.', running: 'Running programs', add: (name: string) => `Add ${name}`, addPath: 'Add', remove: (name: string) => `Remove ${name}`, notInstalled: 'not installed' },
  ru: { noMatch: (filter: string) => `Здесь нет приложений по запросу «${filter}».`, settings: 'Настройки', save: 'Сохранить', page: 'Приложения', bypass: 'Эти приложения идут мимо VPN', only: 'Через VPN идут только эти приложения', empty: 'В списке пока нет приложений.', running: 'Запущенные программы', add: (name: string) => `Добавить ${name}`, addPath: 'Добавить', remove: (name: string) => `Убрать ${name}`, notInstalled: 'не установлено' },
  fa: { noMatch: (filter: string) => `برنامه‌ای در اینجا با «${filter}» جور نیست.`, settings: 'تنظیمات', save: 'ذخیره', page: 'برنامه‌ها', bypass: 'این برنامه‌ها از VPN عبور نمی‌کنند', only: 'فقط این برنامه‌ها از VPN استفاده می‌کنند', empty: 'هنوز برنامه‌ای در این فهرست نیست.', running: 'برنامه‌های در حال اجرا', add: (name: string) => `افزودن ${name}`, addPath: 'افزودن', remove: (name: string) => `حذف ${name}`, notInstalled: 'نصب نیست' },
  ar: { noMatch: (filter: string) => `لا تطبيق هنا يطابق «${filter}».`, settings: 'الإعدادات', save: 'حفظ', page: 'التطبيقات', bypass: 'هذه التطبيقات تتجاوز VPN', only: 'هذه التطبيقات وحدها تستخدم VPN', empty: 'لا تطبيقات في هذه القائمة بعد.', running: 'البرامج العاملة', add: (name: string) => `أضف ${name}`, addPath: 'إضافة', remove: (name: string) => `أزل ${name}`, notInstalled: 'غير مثبّت' },
  zh: { noMatch: (filter: string) => `这里没有与“${filter}”匹配的应用。`, settings: '设置', save: '保存', page: '应用', bypass: '这些应用绕过 VPN', only: '只有这些应用使用 VPN', empty: '此列表中还没有应用。', running: '正在运行的程序', add: (name: string) => `添加 ${name}`, addPath: '添加', remove: (name: string) => `移除 ${name}`, notInstalled: '未安装' },
} as const;
type Language = keyof typeof LOCALES;

/**
 * What a person reads or clicks on the page: the atoms the box check measures. A token isolated
 * inside a sentence (bdi.technical) counts as part of its sentence: an inline box's content area
 * reaches past its line, so those on adjacent lines touch while their glyphs do not.
 */
const ATOMS = ['legend', '.field > span', 'select', 'input', 'button', '.badge', 'bdi:not(.technical)', 'li > span', 'h4', '.hint', '.muted', 'img'];

/** The running program's name as /proc shows it (15 characters at most). */
const PLAYER = 'uipages-player';

describe('Settings → Apps in five languages', () => {
  let world: DemoWorld;
  let browser: Browser;
  let app: AppPage;
  let page: Page;
  let programDir: string;
  let program: ChildProcess;
  let programPath: string;

  beforeAll(async () => {
    programDir = mkdtempSync(join(tmpdir(), 'steadfast-e2e-apps-'));
    programPath = join(programDir, PLAYER);
    copyFileSync('/bin/sleep', programPath);
    program = spawn(programPath, ['600'], { stdio: 'ignore' });
    world = await startWorld({ servers: 2, subscriptions: 1, autoConnect: false });
    browser = await launchChromium();
    app = await openApp(browser, world.host.url, { height: 900 });
    page = app.page;
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await world?.dispose();
    program?.kill('SIGKILL');
    if (programDir) rmSync(programDir, { recursive: true, force: true });
  });

  const setLanguage = async (language: Language) => {
    await world.engine.setSettings({ language });
    await eventually(`<html lang="${language}">`, 10_000, async () => ((await page.evaluate(() => document.documentElement.lang)) === language ? true : undefined));
  };
  const openApps = async (language: Language) => {
    const words = LOCALES[language];
    await page.getByRole('button', { name: words.settings, exact: true }).click();
    const dialog = page.getByRole('dialog', { name: words.settings });
    await dialog.getByRole('tab', { name: words.page, exact: true }).click();
    const apps = dialog.locator('#settings-page-apps');
    await apps.locator('.per-app-settings').waitFor();
    return { dialog, apps };
  };
  const perApp = async () => (await world.engine.getSnapshot({})).settings.perApp;

  it('keeps the chosen list and its apps, marks an app that is not installed, and the engine holds what was saved', async () => {
    for (const language of Object.keys(LOCALES) as Language[]) {
      const words = LOCALES[language];
      const missing = `/opt/uipages-gone-${language}/app`;
      await world.engine.setSettings({ perApp: { mode: 'off', bypass: [], only: [] } });
      await setLanguage(language);
      await page.setViewportSize({ width: 1280, height: 900 });

      const { dialog, apps } = await openApps(language);
      const rtl = language === 'fa' || language === 'ar';
      expect(await apps.evaluate((element) => getComputedStyle(element).direction)).toBe(rtl ? 'rtl' : 'ltr');

      // "These apps bypass the VPN": an empty list, then a running program picked from the list.
      await apps.locator('select').selectOption('bypass');
      const list = apps.getByRole('list', { name: words.bypass });
      expect((await list.textContent())?.trim()).toBe(words.empty);
      await apps.getByRole('heading', { name: words.running }).waitFor();
      await apps.locator('input[type="search"]').fill(PLAYER);
      const pick = apps.getByRole('button', { name: words.add(PLAYER), exact: true });
      await pick.waitFor({ timeout: 10_000 });
      expect(await pick.getAttribute('title')).toBe(programPath);
      await pick.click();
      expect(await pick.isDisabled()).toBe(true);
      // The installed apps hold nothing by that name here, and say so.
      expect(await apps.locator('.per-app-picker').first().locator('p').textContent()).toBe(words.noMatch(PLAYER));
      // The hint's paths read left to right in every language, slashes where they belong.
      for (const token of ['/usr/bin/app', 'C:\\…\\app.exe', '/Applications/App.app']) {
        const read = await page.evaluate(readsLeftToRight, { selector: '#settings-page-apps .field:has(input[type="text"]) .hint', token });
        expect(read, `${language}: ${token}`).toMatchObject({ found: true, inOrder: true });
      }

      // An app by a path this machine does not have: kept, and said so.
      await apps.locator('input[type="text"]').fill(missing);
      await apps.getByRole('button', { name: words.addPath, exact: true }).click();
      const entries = list.locator('li');
      await expect.poll(() => entries.count()).toBe(2);
      const gone = list.locator('li[data-missing="yes"]');
      await expect.poll(() => gone.count(), { timeout: 10_000 }).toBe(1);
      expect(await gone.locator('bdi').textContent()).toBe(missing);
      expect(await gone.locator('.badge').textContent()).toBe(words.notInstalled);
      const present = list.locator('li[data-missing="no"]');
      expect(await present.locator('span').first().textContent()).toBe(PLAYER);
      expect(await present.locator('bdi').textContent()).toBe(programPath);
      // A path reads left to right in every language.
      expect(await gone.locator('bdi').evaluate((element) => getComputedStyle(element).direction)).toBe('ltr');

      // The page holds together with the list filled, at the usual size and in a small window.
      for (const viewport of [{ width: 1280, height: 900 }, { width: 900, height: 600 }]) {
        await page.setViewportSize(viewport);
        await page.evaluate(() => document.fonts.ready.then(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)))));
        const { problems, shown } = await page.evaluate(measureBoxes, { root: '#settings-page-apps', atoms: ATOMS });
        expect(problems, `${language} ${viewport.width}×${viewport.height}`).toEqual([]);
        expect(shown).toBeGreaterThan(10);
      }
      await page.setViewportSize({ width: 1280, height: 900 });
      await screenshot(dialog, `settings-apps-${language}`);

      // "Only these apps use the VPN": its own list, the other one kept.
      await apps.locator('select').selectOption('only');
      const only = apps.getByRole('list', { name: words.only });
      expect((await only.textContent())?.trim()).toBe(words.empty);
      await apps.getByRole('button', { name: words.add(PLAYER), exact: true }).click();
      await expect.poll(() => only.locator('li').count()).toBe(1);
      await dialog.getByRole('button', { name: words.save, exact: true }).click();
      await dialog.waitFor({ state: 'detached' });
      expect(await perApp()).toEqual({ mode: 'only', bypass: [programPath, missing], only: [programPath] });

      // Opened again: as saved. Back to the bypass list, one app removed, saved.
      const again = await openApps(language);
      expect(await again.apps.locator('select').inputValue()).toBe('only');
      await again.apps.locator('select').selectOption('bypass');
      const bypass = again.apps.getByRole('list', { name: words.bypass });
      await expect.poll(() => bypass.locator('li[data-missing="yes"] .badge').textContent(), { timeout: 10_000 }).toBe(words.notInstalled);
      await bypass.getByRole('button', { name: words.remove(PLAYER), exact: true }).click();
      await expect.poll(() => bypass.locator('li').count()).toBe(1);
      await again.dialog.getByRole('button', { name: words.save, exact: true }).click();
      await again.dialog.waitFor({ state: 'detached' });
      expect(await perApp()).toEqual({ mode: 'bypass', bypass: [missing], only: [programPath] });
    }
    expect(app.errors).toEqual([]);
    expect(app.refused).toEqual([]);
  }, 240_000);
});
