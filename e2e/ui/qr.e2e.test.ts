/**
 * The QR round trip in the built UI: a server shared as a QR code (shown only after a click),
 * the picture decoded, and the code read back in through "QR code from an image…" as the same
 * server, link for link.
 */
import jsQR from 'jsqr';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseLinkList } from '../../app/subscriptions/parse/links';
import type { ListServer } from '../../shared/ipc/contract';
import { type AppPage, type DemoWorld, launchChromium, openApp, pixelsOf, screenshot, STRINGS, startWorld } from './harness';

describe('QR codes', () => {
  let world: DemoWorld;
  let browser: Browser;
  let app: AppPage;
  let page: Page;
  let server: ListServer;

  beforeAll(async () => {
    world = await startWorld({ autoConnect: false });
    browser = await launchChromium();
    app = await openApp(browser, world.host.url, { height: 1200 });
    page = app.page;
    const first = (await world.engine.getSnapshot({})).subscriptions[0]?.servers[0];
    if (!first) throw new Error('no server in the lab');
    server = first;
    await page.locator('[role="listitem"][data-server-id]').first().waitFor();
  });

  afterAll(async () => {
    await browser?.close();
    await world?.dispose();
  });

  it('export → decode the picture → import: the same server, and the link is shown only after a click', async () => {
    await page.getByRole('button', { name: STRINGS.en.details(server.name), exact: true }).click();
    await page.getByRole('button', { name: 'Share…', exact: true }).click();
    const share = page.locator('.share-dialog');
    await share.waitFor();
    // Before the click the page holds no link: the host sends the UI no credentials.
    const expected = (await world.engine.shareLink({ serverId: server.id })).link;
    if (!expected) throw new Error('a server always has a share link');
    expect(await share.locator('.share-link, .share-qr').count()).toBe(0);
    expect(await page.content()).not.toContain(expected);
    await share.getByRole('button', { name: 'Show the QR code and link', exact: true }).click();
    const qr = share.locator('.share-qr');
    await qr.locator('svg').waitFor();
    const picture = await qr.screenshot();
    await screenshot(share, 'share-qr-en');

    const pixels = await pixelsOf(browser, picture);
    const decoded = jsQR(pixels.data, pixels.width, pixels.height)?.data;
    expect(decoded).toBe(expected);
    expect(await share.locator('.share-link').textContent()).toBe(expected);
    const parsed = parseLinkList(decoded ?? '').servers[0];
    expect(parsed).toMatchObject({ protocol: server.protocol, address: server.address, port: server.port, name: server.name });
    await share.getByRole('button', { name: 'Close', exact: true }).click();
    // Opened from the details, Close goes back to them; their own Close ends it.
    const details = page.locator('.details-dialog');
    await details.waitFor();
    await details.getByRole('button', { name: 'Close', exact: true }).click();
    await details.waitFor({ state: 'detached' });

    // The same picture read back in: it becomes a request the user confirms, then a subscription.
    const before = (await world.engine.getSnapshot({})).subscriptions.length;
    await page.getByRole('button', { name: 'Add subscription' }).click();
    const add = page.getByRole('dialog', { name: 'Add a subscription' });
    await add.locator('input[type="file"]').setInputFiles({ name: 'code.png', mimeType: 'image/png', buffer: picture });
    const confirm = page.getByRole('dialog', { name: 'Add this subscription?' });
    await confirm.waitFor();
    expect(await confirm.textContent()).toContain('From a QR code');
    await confirm.getByRole('button', { name: 'Add', exact: true }).click();
    await confirm.waitFor({ state: 'detached' });
    const after = (await world.engine.getSnapshot({})).subscriptions;
    expect(after).toHaveLength(before + 1);
    const imported = after.at(-1)?.servers;
    expect(imported).toHaveLength(1);
    expect((await world.engine.shareLink({ serverId: imported![0]!.id })).link).toBe(expected);
    expect(app.errors).toEqual([]);
  });

  it('a picture without a QR code says so, and nothing is offered', async () => {
    await page.getByRole('button', { name: 'Add subscription' }).click();
    const add = page.getByRole('dialog', { name: 'Add a subscription' });
    const blank = await page.locator('.brand').screenshot();
    await add.locator('input[type="file"]').setInputFiles({ name: 'blank.png', mimeType: 'image/png', buffer: blank });
    await add.getByRole('alert').filter({ hasText: 'No QR code was found in the picture.' }).waitFor();
    expect((await world.engine.getSnapshot({})).importRequests).toEqual([]);
    await add.getByRole('button', { name: 'Cancel', exact: true }).click();
  });
});
