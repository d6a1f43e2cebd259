/**
 * Through the headless host and the real engine: a subscription's User-Agent edited after it was
 * added (saved, then the subscription fetched again with it), and the Connect button leaving the
 * choice of server to the engine.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AppPage, type DemoWorld, launchChromium, openApp, startWorld } from './harness';

describe('a subscription’s settings and the Connect button', () => {
  let world: DemoWorld;
  let browser: Browser;
  let app: AppPage;
  let page: Page;

  beforeAll(async () => {
    world = await startWorld({ autoConnect: false });
    browser = await launchChromium();
    app = await openApp(browser, world.host.url, { height: 1200 });
    page = app.page;
    await page.locator('[role="listitem"][data-server-id]').first().waitFor();
  });

  afterAll(async () => {
    await browser?.close();
    await world?.dispose();
  });

  it('the User-Agent of a subscription already added is saved, and the subscription fetched again at once', async () => {
    const [first] = (await world.engine.getSnapshot({})).subscriptions;
    if (!first) throw new Error('the demo has no subscription');
    const labSub = world.lab.info.subscriptions.find((s) => first.url?.startsWith(s.url));
    if (!labSub) throw new Error(`no lab subscription behind ${first.url}`);
    const fetches = async () => (await world.lab.counters()).subscriptions[labSub.id] ?? 0;
    const before = await fetches();

    const settingsOf = new RegExp(`^Settings of \\u2068?${first.name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\u2069?$`);
    await page.getByRole('button', { name: settingsOf }).click();
    const dialog = page.getByRole('dialog', { name: settingsOf });
    const field = dialog.getByRole('textbox', { name: /User-Agent/ });
    await field.fill('Клиент/1.0');
    await dialog.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => dialog.getByRole('alert').textContent()).toMatch(/printable ASCII/);

    await field.fill('clash-verge/v1.7.7');
    await dialog.getByRole('button', { name: 'Save' }).click();
    await dialog.waitFor({ state: 'detached' });
    await expect.poll(async () => (await world.engine.getSnapshot({})).subscriptions.find((s) => s.id === first.id)?.userAgent).toBe('clash-verge/v1.7.7');
    await expect.poll(fetches, { timeout: 10_000 }).toBe(before + 1);

    // Opened again, it shows what was saved.
    await page.getByRole('button', { name: settingsOf }).click();
    expect(await page.getByRole('dialog', { name: settingsOf }).getByRole('textbox', { name: /User-Agent/ }).inputValue()).toBe('clash-verge/v1.7.7');
    await page.getByRole('dialog', { name: settingsOf }).getByRole('button', { name: 'Cancel' }).click();
    expect(app.errors).toEqual([]);
  });

  it('Connect names no server: the engine picks one and Auto is left as it was', async () => {
    const autoBefore = (await world.engine.getSnapshot({})).auto.subscriptionId;
    await page.getByRole('button', { name: 'Connect', exact: true }).click();
    await expect.poll(async () => (await world.engine.getSnapshot({})).connection.state, { timeout: 15_000 }).toBe('connected');
    const snapshot = await world.engine.getSnapshot({});
    expect(snapshot.subscriptions.flatMap((s) => s.servers).some((s) => s.id === snapshot.connection.serverId)).toBe(true);
    expect(snapshot.auto.subscriptionId).toBe(autoBefore);
    await page.getByRole('button', { name: 'Disconnect', exact: true }).waitFor();
    expect(app.errors).toEqual([]);
  });
});
