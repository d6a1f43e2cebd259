/**
 * A server group's exclusions in the real UI against the real engine: the group's view on the Auto
 * timeline says how many members it does not use and opens their list; a member excluded from Auto
 * in its subscription shows there checked and locked (no group takes it); marking the group's pick
 * moves the group, and only the group, to its other member once Done is pressed; the last member
 * neither list marks cannot be marked.
 */
import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GroupPickSnapshot } from '../../shared/domain/auto';
import { splitFlags } from '../../shared/domain/name-flags';
import type { ListServer } from '../../shared/ipc/contract';
import { type AppPage, type DemoWorld, allTested, eventually, launchChromium, openApp, screenshot, STRINGS, startWorld } from './harness';

const en = STRINGS.en;
const GROUP = 'AI';

describe("a server group's exclusions", () => {
  let world: DemoWorld;
  let browser: Browser;
  let app: AppPage;
  let page: Page;
  let members: ListServer[];

  const snapshot = () => world.engine.getSnapshot({});
  const group = async (): Promise<GroupPickSnapshot | undefined> => (await snapshot()).auto.groups?.find((g) => g.name === GROUP);
  const view = () => page.locator(`[data-group="${GROUP}"]`);
  // Names and numbers are isolated for right-to-left text; the test reads the words.
  const viewText = async () => ((await view().textContent()) ?? '').replace(/[\u2068\u2069]/g, '');
  const dialog = () => page.getByRole('dialog', { name: 'Servers this group will not use' });
  const wordsOf = (name: string) => splitFlags(name).map((part) => ('text' in part ? part.text : '')).join('').trim();
  const checkboxOf = (server: ListServer): Locator => dialog().getByRole('checkbox', { name: wordsOf(server.name) });

  beforeAll(async () => {
    world = await startWorld();
    browser = await launchChromium();
    app = await openApp(browser, world.host.url, { height: 1400 });
    page = app.page;
    await allTested(world);
    const state = await snapshot();
    const subscription = state.subscriptions.find((s) => s.id === state.auto.subscriptionId) ?? state.subscriptions[0]!;
    // Three members by hand, none of them the main connection's server (so marking them in Auto moves only the group).
    members = subscription.servers.filter((s) => s.id !== state.connection.serverId).slice(0, 3);
    expect(members.length).toBe(3);
    await world.engine.setSettings({ groups: [{ name: GROUP, members: { by: 'servers', serverIds: members.map((s) => s.id) } }] });
    await eventually('the group on a member', 20_000, async () => ((await group())?.state === 'on' ? true : undefined));
  }, 90_000);

  afterAll(async () => {
    await browser?.close();
    await world?.dispose();
  });

  it('a member excluded from Auto is shown locked in the group’s list; marking the pick moves the group at Done; the last member is locked', async () => {
    const main = (await snapshot()).connection.serverId;
    const pick = (await group())!.pick!;
    const others = members.filter((s) => s.id !== pick) as [ListServer, ListServer];
    const [inAuto, last] = others;
    const subscriptionId = (await snapshot()).subscriptions.find((s) => s.servers.some((x) => x.id === inAuto.id))!.id;
    // Excluded from Auto in its subscription (as the Auto button's dialog does it).
    await world.engine.setExcluded({ subscriptionId, serverIds: [inAuto.id] });
    await expect.poll(() => viewText(), { timeout: 10_000 }).toContain('1 of 3 members not used');

    await view().getByRole('button', { name: `Exclude members of ${GROUP}` }).click();
    await dialog().waitFor();
    expect(await dialog().getByRole('checkbox').count()).toBe(3);
    expect(await checkboxOf(inAuto).isChecked()).toBe(true);
    expect(await checkboxOf(inAuto).isDisabled()).toBe(true);
    const hintId = await checkboxOf(inAuto).getAttribute('aria-describedby');
    expect((await page.locator(`[id="${hintId}"]`).textContent())?.trim()).toMatch(/^Marked in its subscription’s list of servers Auto will not use/);

    const pickServer = members.find((s) => s.id === pick)!;
    await checkboxOf(pickServer).check();
    // The one member neither list marks is locked, with the reason.
    expect(await checkboxOf(last).isDisabled()).toBe(true);
    const reasonId = (await checkboxOf(last).getAttribute('aria-describedby'))!;
    expect((await page.locator(`[id="${reasonId}"]`).textContent())?.trim()).toBe('At least one member must stay available to the group.');
    await expect.poll(() => dialog().textContent()).toContain('The group is on a marked server');
    await screenshot(dialog(), 'group-exclusions-dialog');
    // Marked but not yet done: the group stays.
    await page.waitForTimeout(500);
    expect((await group())!.pick).toBe(pick);

    await dialog().getByRole('button', { name: en.done }).click();
    await dialog().waitFor({ state: 'detached' });
    expect((await group())!.excluded).toEqual([pick]);
    const moved = await eventually('the group on its last member', 15_000, async () => {
      const g = await group();
      return g?.pick === last.id ? g : undefined;
    });
    expect(moved.reason).toBe('excluded');
    await expect.poll(() => viewText(), { timeout: 10_000 }).toContain('2 of 3 members not used');
    await expect.poll(() => viewText()).toContain(`${GROUP}: on`);
    // Only the group moved.
    expect((await snapshot()).connection.serverId).toBe(main);
    expect(app.errors).toEqual([]);
    expect(app.refused).toEqual([]);
  }, 60_000);
});
