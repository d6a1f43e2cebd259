/**
 * A panel's "add to app" link, end to end through the headless host: the link arrives (as the
 * desktop app hands over what the OS gives it, and `npm run headless -- --open LINK` does), the
 * page shows the address and the proposed name, and only the user's "Add" fetches anything.
 * Declined, nothing is fetched and nothing is added.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AppPage, type DemoWorld, launchChromium, openApp, screenshot, startWorld } from './harness';

const ADD_TITLE = 'Add this subscription?';

describe('deep links', () => {
  let world: DemoWorld;
  let browser: Browser;
  let app: AppPage;
  let page: Page;
  let labSub: { id: string; url: string };

  const fetchesOfLabSub = async () => (await world.lab.counters()).subscriptions[labSub.id] ?? 0;
  const dialog = () => page.getByRole('dialog', { name: ADD_TITLE });

  beforeAll(async () => {
    world = await startWorld({ autoConnect: false });
    browser = await launchChromium();
    app = await openApp(browser, world.host.url, { height: 1200 });
    page = app.page;
    const first = world.lab.info.subscriptions[0];
    if (!first) throw new Error('the lab has no subscription');
    labSub = first;
    await page.locator('[role="listitem"][data-server-id]').first().waitFor();
  });

  afterAll(async () => {
    await browser?.close();
    await world?.dispose();
  });

  it('shows the address and the proposed name, fetches nothing until Add, then adds the subscription', async () => {
    const address = `${labSub.url}?format=plain`;
    const before = await fetchesOfLabSub();
    world.engine.offerLink(`hiddify://import/${address}#${encodeURIComponent('🇩🇪 From the panel')}`);

    await dialog().waitFor();
    const host = new URL(address).host;
    expect(await dialog().locator('.import-host').textContent()).toBe(host);
    expect(await dialog().locator('.import-url').textContent()).toBe(address);
    // The proposed name, its flag drawn and named.
    expect(await dialog().getByRole('img', { name: 'Germany' }).getAttribute('data-country')).toBe('DE');
    await screenshot(dialog(), 'deep-link-confirmation-en');
    expect(await fetchesOfLabSub()).toBe(before);
    expect((await world.engine.getSnapshot({})).subscriptions.some((s) => s.url === address)).toBe(false);

    await dialog().getByRole('button', { name: 'Add', exact: true }).click();
    await dialog().waitFor({ state: 'detached' });
    const added = (await world.engine.getSnapshot({})).subscriptions.find((s) => s.url === address);
    expect(added?.name).toBe('🇩🇪 From the panel');
    expect(added?.servers.length).toBeGreaterThan(0);
    expect(await fetchesOfLabSub()).toBe(before + 1);
    await page.getByRole('heading', { name: /From the panel/ }).waitFor();
    expect((await world.engine.getSnapshot({})).importRequests).toEqual([]);
  });

  it('adds nothing and fetches nothing when the user declines', async () => {
    const address = `${labSub.url}?format=json`;
    const before = await fetchesOfLabSub();
    const count = (await world.engine.getSnapshot({})).subscriptions.length;
    world.engine.offerLink(`v2rayn://install-sub?url=${encodeURIComponent(address)}&name=Declined`);

    await dialog().waitFor();
    await dialog().getByRole('button', { name: 'Don’t add', exact: true }).click();
    await dialog().waitFor({ state: 'detached' });
    const after = await world.engine.getSnapshot({});
    expect(after.subscriptions).toHaveLength(count);
    expect(after.subscriptions.some((s) => s.url === address)).toBe(false);
    expect(after.importRequests).toEqual([]);
    expect(await fetchesOfLabSub()).toBe(before);
    expect(app.errors).toEqual([]);
  });

  it('tells why a link cannot be added, and adds nothing', async () => {
    const count = (await world.engine.getSnapshot({})).subscriptions.length;
    world.engine.offerLink(`clash://install-config?url=${encodeURIComponent('file:///etc/passwd')}`);
    const unreadable = page.getByRole('dialog', { name: 'This cannot be added' });
    await unreadable.waitFor();
    expect(await unreadable.textContent()).toContain('not file:');
    await unreadable.getByRole('button', { name: 'Close', exact: true }).click();
    await unreadable.waitFor({ state: 'detached' });
    expect((await world.engine.getSnapshot({})).subscriptions).toHaveLength(count);
  });
});
