/**
 * The app as people see it, in English and in Persian: screenshots of the main view, the exclusion
 * dialog, a server's ping chart and the Auto timeline (written to e2e/artifacts/ for a person to
 * look at), and Persian switched on through Settings laying the whole page out right to left.
 *
 * The world first lives a little: a blackholed server makes Auto switch (so the timeline has a
 * check, a switch and its reason, and the chart a failure mark), then the fault is lifted.
 */
import { statSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Server } from '../../shared/domain/server';
import { type AppPage, type DemoWorld, allTested, currentRowId, eventually, launchChromium, openApp, screenshot, STRINGS, startWorld } from './harness';

type Lang = 'en' | 'fa';

describe('screens in English and Persian', () => {
  let world: DemoWorld;
  let browser: Browser;
  let app: AppPage;
  let page: Page;
  /** The server that was blackholed: its chart has answers and a failure. */
  let troubled: Server;
  let subscriptionName = '';

  beforeAll(async () => {
    world = await startWorld({ intervalMs: 15_000 });
    browser = await launchChromium();
    app = await openApp(browser, world.host.url);
    page = app.page;
    await allTested(world);
    const snapshot = await world.engine.getSnapshot({});
    const from = snapshot.connection.serverId;
    const subscription = snapshot.subscriptions.find((s) => s.id === snapshot.auto.subscriptionId);
    troubled = subscription?.servers.find((s) => s.id === from) as Server;
    subscriptionName = subscription?.name ?? '';
    if (!troubled) throw new Error('not connected through the Auto subscription');

    const lab = page.getByRole('region', { name: STRINGS.en.lab });
    await lab.getByRole('button', { name: STRINGS.en.blackhole }).click();
    await eventually('Auto switches away', 20_000, async () => {
      const id = await currentRowId(page);
      return id && id !== from && (await page.locator('.decision.tone-switch').count()) > 0 ? true : undefined;
    });
    await lab.getByRole('button', { name: STRINGS.en.clearFaults }).click();
    // One more test of the troubled server after the fault, so its chart shows the way back.
    await world.engine.testServer({ serverId: troubled.id });
  });

  afterAll(async () => {
    await browser?.close();
    await world?.dispose();
  });

  /** The four screens of issue 6, named NAME-LANG.png. */
  async function captureScreens(lang: Lang): Promise<string[]> {
    const words = STRINGS[lang];
    const paths: string[] = [];
    // A calm page: no toast, no hover, every pane scrolled to its start.
    for (const dismiss of await page.locator('.notices .notice button').all()) await dismiss.click();
    await page.evaluate(() => document.querySelectorAll('.side-pane, .server-scroller').forEach((pane) => pane.scrollTo(0, 0)));
    await page.mouse.move(0, 0);
    await page.locator('.flag svg').first().waitFor();
    paths.push(await screenshot(page, `main-view-${lang}`));

    const timeline = page.locator('.timeline-panel');
    await timeline.locator('svg[role="img"] .marker-switch').first().waitFor();
    paths.push(await screenshot(timeline, `timeline-${lang}`));

    await page.getByRole('button', { name: words.details(troubled.name), exact: true }).click();
    const details = page.getByRole('dialog');
    await details.locator('.ping-chart svg.recharts-surface').waitFor();
    await page.mouse.move(0, 0);
    await page.waitForTimeout(300);
    paths.push(await screenshot(page, `ping-chart-${lang}`));
    await details.getByRole('button', { name: words.close, exact: true }).click();
    await details.waitFor({ state: 'detached' });

    await page.getByRole('button', { name: `${words.autoPrefix}${subscriptionName})`, exact: true }).click({ button: 'right' });
    const exclusions = page.getByRole('dialog', { name: words.excludeTitle });
    await exclusions.waitFor();
    paths.push(await screenshot(page, `exclusion-dialog-${lang}`));
    await page.keyboard.press('Escape');
    await exclusions.waitFor({ state: 'detached' });
    return paths;
  }

  it('captures the main view, the timeline, the ping chart and the exclusion dialog in English', async () => {
    expect(await page.evaluate(() => [document.documentElement.dir, document.documentElement.lang])).toEqual(['ltr', 'en']);
    const paths = await captureScreens('en');
    for (const path of paths) expect(statSync(path).size, path).toBeGreaterThan(10_000);
  });

  it('draws an emoji flag in a server name as the flag image the exit country uses, named for screen readers', async () => {
    // Lab names such as "🇫🇮 Helsinki · A1" carry the flag of the server's own country.
    const row = page.locator('[role="listitem"][data-server-id]').filter({ has: page.locator('.server-name .flag') }).first();
    const inName = row.locator('.server-name .flag');
    const exit = row.locator('.row-exit .flag');
    await inName.locator('svg').waitFor();
    expect(await inName.getAttribute('data-country')).toBe(await exit.getAttribute('data-country'));
    expect(await inName.getAttribute('aria-label')).toBe(await exit.getAttribute('aria-label'));
    expect(await inName.innerHTML()).toBe(await exit.innerHTML());
    expect(await row.locator('.server-name').textContent()).not.toMatch(/[\u{1F1E6}-\u{1F1FF}]/u);
    const path = await screenshot(row, 'flag-in-name-en');
    expect(statSync(path).size).toBeGreaterThan(1_000);
  });

  it('switches to Persian in Settings and lays the page out right to left', async () => {
    const row = page.locator('[role="listitem"][data-server-id]').first();
    const ltr = { name: await row.locator('.row-main').boundingBox(), ping: await row.locator('.row-ping').boundingBox() };
    const englishCountry = await row.locator('.row-exit .flag').getAttribute('aria-label');

    await page.getByRole('button', { name: STRINGS.en.settings, exact: true }).click();
    const settings = page.getByRole('dialog', { name: STRINGS.en.settings });
    await settings.getByLabel(STRINGS.en.language).selectOption('fa');
    await settings.getByRole('button', { name: STRINGS.en.save, exact: true }).click();
    await settings.waitFor({ state: 'detached' });

    await eventually('<html dir="rtl" lang="fa">', 5000, async () =>
      (await page.evaluate(() => `${document.documentElement.dir} ${document.documentElement.lang}`)) === 'rtl fa' ? true : undefined,
    );
    expect((await world.engine.getSnapshot({})).settings.language).toBe('fa');

    // Mirrored: the name column moved from the left of the ping to its right, and the server list
    // from the left of the side pane to its right.
    const rtl = { name: await row.locator('.row-main').boundingBox(), ping: await row.locator('.row-ping').boundingBox() };
    if (!ltr.name || !ltr.ping || !rtl.name || !rtl.ping) throw new Error('row cells have no box');
    expect(ltr.name.x).toBeLessThan(ltr.ping.x);
    expect(rtl.name.x).toBeGreaterThan(rtl.ping.x);
    const list = await page.locator('.servers-pane').boundingBox();
    const side = await page.locator('.side-pane').boundingBox();
    expect(list && side && list.x > side.x).toBe(true);
    // The words are Persian: the Lab panel's name, the country names under the flags.
    expect(await page.getByRole('region', { name: STRINGS.fa.lab }).count()).toBe(1);
    const persianCountry = await row.locator('.row-exit .flag').getAttribute('aria-label');
    expect(persianCountry).not.toBe(englishCountry);
    expect(persianCountry).toMatch(/[\u0600-\u06FF]/u);
  });

  it('captures the same screens in Persian', async () => {
    const paths = await captureScreens('fa');
    for (const path of paths) expect(statSync(path).size, path).toBeGreaterThan(10_000);
    expect(app.errors).toEqual([]);
    expect(app.refused).toEqual([]);
  });
});
