/**
 * Settings → Cores in the real UI against the real engine of the demo world: the page lists the
 * cores this machine has, as `cli cores` does, with the bundled Xray 26.3.27 as the main core.
 * A small world (two servers, no connection) keeps it cheap: the list does not wait for tests.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AppPage, type DemoWorld, launchChromium, openApp, screenshot, STRINGS, startWorld } from './harness';

const en = STRINGS.en;

describe('Settings → Cores', () => {
  let world: DemoWorld;
  let browser: Browser;
  let app: AppPage;
  let page: Page;

  beforeAll(async () => {
    world = await startWorld({ servers: 2, subscriptions: 1, autoConnect: false });
    browser = await launchChromium();
    app = await openApp(browser, world.host.url, { height: 1000 });
    page = app.page;
  });

  afterAll(async () => {
    await browser?.close();
    await world?.dispose();
  });

  it('lists Xray 26.3.27 as the main core, with sing-box beside it and v2ray available', async () => {
    await page.getByRole('button', { name: en.settings, exact: true }).click();
    const settings = page.getByRole('dialog', { name: en.settings });
    await settings.getByRole('tab', { name: 'Cores', exact: true }).click();
    const main = settings.locator('.core-entry[data-role="main"]');
    await main.waitFor({ timeout: 60_000 });
    expect(await main.getAttribute('data-core')).toBe('xray');
    expect(await main.locator('.core-heading strong').textContent()).toBe('Xray 26.3.27');
    expect(await main.locator('.core-role').textContent()).toBe('Main core');
    expect(await settings.locator('.core-entry[data-core="sing-box"]').getAttribute('data-role')).toBe('carrier');
    expect(await settings.locator('.core-entry[data-core="v2ray"]').getAttribute('data-role')).toBe('available');
    await screenshot(page, 'settings-cores-en');
    expect(app.errors).toEqual([]);
    expect(app.refused).toEqual([]);
  });
});
