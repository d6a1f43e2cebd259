/**
 * The servers Auto will not use (spec/auto.md, exclusions), in the real UI against the real engine:
 * the dialog opens by right-click, long-press and Shift+F10 on the Auto button; the last unmarked
 * server cannot be marked; marking the current server moves the connection once Done is pressed;
 * marks survive a subscription update started from the UI.
 */
import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { splitFlags } from '../../shared/domain/name-flags';
import type { SubscriptionId } from '../../shared/domain/server';
import type { ListServer } from '../../shared/ipc/contract';
import { type AppPage, type DemoWorld, allTested, currentRowId, eventually, launchChromium, openApp, rowOf, STRINGS, startWorld } from './harness';

const en = STRINGS.en;

describe('the exclusion dialog', () => {
  let world: DemoWorld;
  let browser: Browser;
  let app: AppPage;
  let page: Page;
  let subscriptionId: SubscriptionId;
  let subscriptionName: string;
  let servers: ListServer[];

  const autoButton = () => page.getByRole('button', { name: `${en.autoPrefix}${subscriptionName})`, exact: true });
  const dialog = () => page.getByRole('dialog', { name: en.excludeTitle });
  // A flag in a name is drawn as an image read out as its country ("Switzerland Zurich · A1"), so
  // the checkbox is found by the name's words.
  const wordsOf = (name: string) => splitFlags(name).map((part) => ('text' in part ? part.text : '')).join('').trim();
  const checkboxOf = (server: ListServer): Locator => dialog().getByRole('checkbox', { name: wordsOf(server.name) });
  const snapshot = () => world.engine.getSnapshot({});
  const excludedIds = async () => (await snapshot()).auto.excluded[subscriptionId] ?? [];

  beforeAll(async () => {
    world = await startWorld();
    browser = await launchChromium();
    app = await openApp(browser, world.host.url, { height: 1400 });
    page = app.page;
    await allTested(world);
    const state = await snapshot();
    const subscription = state.subscriptions.find((s) => s.id === state.auto.subscriptionId);
    if (!subscription) throw new Error('Auto is not on for any subscription');
    subscriptionId = subscription.id;
    subscriptionName = subscription.name;
    servers = subscription.servers;
    expect(servers.length).toBeGreaterThanOrEqual(3);
    await eventually('the current server marked in the list', 10_000, async () => ((await currentRowId(page)) ? true : undefined));
  });

  afterAll(async () => {
    await browser?.close();
    await world?.dispose();
  });

  it('opens with a right-click, a long press (≥ 500 ms) and Shift+F10, leaving Auto on', async () => {
    // Right-click.
    await autoButton().click({ button: 'right' });
    await dialog().waitFor();
    await dialog().getByRole('button', { name: en.cancel }).click();
    await dialog().waitFor({ state: 'detached' });

    // Long press with the primary button: the dialog opens while the button is still held.
    const box = await autoButton().boundingBox();
    if (!box) throw new Error('the Auto button has no box');
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    await page.mouse.down();
    await page.waitForTimeout(300);
    expect(await dialog().count(), 'not yet open after 300 ms').toBe(0);
    await dialog().waitFor({ timeout: 2000 });
    await page.mouse.up();
    await page.keyboard.press('Escape');
    await dialog().waitFor({ state: 'detached' });

    // Keyboard: Shift+F10 on the focused button; Escape gives focus back to it.
    await autoButton().focus();
    await page.keyboard.press('Shift+F10');
    await dialog().waitFor();
    await page.keyboard.press('Escape');
    await dialog().waitFor({ state: 'detached' });
    expect(await autoButton().evaluate((button) => button === document.activeElement)).toBe(true);

    // None of these toggled Auto.
    expect(await autoButton().getAttribute('aria-pressed')).toBe('true');
    expect((await snapshot()).auto.subscriptionId).toBe(subscriptionId);
    expect(await excludedIds()).toEqual([]);
  });

  it('never lets the last unmarked server be marked, and says why', async () => {
    await autoButton().click({ button: 'right' });
    await dialog().waitFor();
    expect(await dialog().getByRole('checkbox').count()).toBe(servers.length);
    const [last, ...others] = [...servers].reverse() as [ListServer, ...ListServer[]];
    for (const server of others) await checkboxOf(server).check();

    const locked = checkboxOf(last);
    expect(await locked.isDisabled()).toBe(true);
    expect(await locked.isChecked()).toBe(false);
    const reasonId = await locked.getAttribute('aria-describedby');
    expect(reasonId).toBeTruthy();
    expect((await page.locator(`[id="${reasonId}"]`).textContent())?.trim()).toBe(en.lastUnmarked);
    // Unmarking any other server frees it again.
    await checkboxOf(others[0] as ListServer).uncheck();
    expect(await locked.isDisabled()).toBe(false);

    // Cancel sends nothing.
    await dialog().getByRole('button', { name: en.cancel }).click();
    await dialog().waitFor({ state: 'detached' });
    expect(await excludedIds()).toEqual([]);
  });

  it('moves off the current server only after Done, and the timeline says why', async () => {
    const current = (await snapshot()).connection.serverId;
    if (!current) throw new Error('not connected');
    expect(await currentRowId(page)).toBe(current);
    const currentServer = servers.find((s) => s.id === current);
    if (!currentServer) throw new Error('the current server is not in the Auto subscription');

    await autoButton().click({ button: 'right' });
    await dialog().waitFor();
    await checkboxOf(currentServer).check();
    // Marked but not yet done: still on it.
    await page.waitForTimeout(500);
    expect((await snapshot()).connection.serverId).toBe(current);
    expect(await excludedIds()).toEqual([]);

    await dialog().getByRole('button', { name: en.done }).click();
    await dialog().waitFor({ state: 'detached' });
    expect(await excludedIds()).toEqual([current]);

    const next = await eventually('the connected marker moves to another server', 15_000, async () => {
      const id = await currentRowId(page);
      return id && id !== current ? id : undefined;
    });
    expect(servers.map((s) => s.id)).toContain(next);
    await eventually('connected through the new server', 15_000, async () => {
      const connection = (await snapshot()).connection;
      return connection.state === 'connected' && connection.serverId === next ? true : undefined;
    });
    await expect.poll(() => rowOf(page, current).getByText(en.excludedChip, { exact: true }).count()).toBe(1);
    await expect
      .poll(() => page.locator('.decision-list .decision-outcome').allTextContents(), { timeout: 10_000 })
      .toContainEqual(expect.stringContaining(en.excludedReason));
    const timelineState = (await snapshot()).auto.timeline;
    expect(timelineState.some((entry) => JSON.stringify(entry).includes('"excluded"'))).toBe(true);
  });

  it('keeps the marks through a subscription update started from the UI', async () => {
    const [marked] = await excludedIds();
    if (!marked) throw new Error('no server is marked');
    const before = (await snapshot()).subscriptions.find((s) => s.id === subscriptionId);
    // The provider serves the same servers in the opposite order.
    const labIds = servers.map((s) => world.labIdOf(s.id));
    const labSubscription = world.lab.info.servers.find((s) => s.id === labIds[0])?.subscription;
    if (!labSubscription) throw new Error('no lab subscription');
    await world.lab.setSubscription(labSubscription, { servers: [...labIds].reverse() });

    await page.getByRole('button', { name: en.update(subscriptionName), exact: true }).click();
    const after = await eventually('the subscription updated', 15_000, async () => {
      const updated = (await snapshot()).subscriptions.find((s) => s.id === subscriptionId);
      return updated && updated.updatedAt !== before?.updatedAt ? updated : undefined;
    });
    expect(after.servers.map((s) => s.id)).toEqual([...servers.map((s) => s.id)].reverse());
    // The list shows the new order (rows are positioned by the virtual list: compare where they are).
    const visualOrder = () =>
      page
        .locator('[role="listitem"][data-server-id]')
        .evaluateAll((rows) => rows.map((r) => ({ id: r.getAttribute('data-server-id'), top: r.getBoundingClientRect().top })).sort((a, b) => a.top - b.top).map((r) => r.id));
    await expect
      .poll(async () => {
        const order = await visualOrder();
        return after.servers.map((s) => order.indexOf(s.id));
      })
      .toSatisfy((positions: number[]) => positions.every((p, i) => p >= 0 && (i === 0 || p > (positions[i - 1] as number))));

    expect(await excludedIds()).toEqual([marked]);
    await expect.poll(() => rowOf(page, marked).getByText(en.excludedChip, { exact: true }).count()).toBe(1);
    await autoButton().click({ button: 'right' });
    await dialog().waitFor();
    const markedServer = after.servers.find((s) => s.id === marked) as ListServer;
    expect(await checkboxOf(markedServer).isChecked()).toBe(true);
    await dialog().getByRole('button', { name: en.cancel }).click();
    expect(app.errors).toEqual([]);
    expect(app.refused).toEqual([]);
  });
});
