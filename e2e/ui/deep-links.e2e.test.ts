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
    // The scheme is isolated (U+2068…U+2069) as every value in a sentence is, for right-to-left languages.
    expect((await unreadable.textContent())?.replace(/[\u2066-\u2069]/g, '')).toContain('not file:');
    await unreadable.getByRole('button', { name: 'Close', exact: true }).click();
    await unreadable.waitFor({ state: 'detached' });
    expect((await world.engine.getSnapshot({})).subscriptions).toHaveLength(count);
  });

  describe('the one import box', () => {
    const box = () => page.getByRole('dialog', { name: 'Add a subscription' });
    const bodyOf = async (format: string) => (await fetch(`${labSub.url}?format=${format}`)).text();

    /** Types (pastes) `text` into the box, confirms what it holds, and returns the subscription it added. */
    const importThroughBox = async (text: string, expectInPrompt: string) => {
      const before = (await world.engine.getSnapshot({})).subscriptions.map((s) => s.id);
      await page.getByRole('button', { name: 'Add subscription' }).click();
      await box().getByRole('textbox', { name: /^Address, links or subscription contents/ }).fill(text);
      await box().getByRole('button', { name: 'Continue', exact: true }).click();
      await dialog().waitFor();
      expect(await box().count()).toBe(0);
      const prompt = await dialog().textContent();
      expect(prompt).toContain('Pasted into the import box');
      expect(prompt).toContain(expectInPrompt);
      await dialog().getByRole('button', { name: 'Add', exact: true }).click();
      await dialog().waitFor({ state: 'detached' });
      const added = (await world.engine.getSnapshot({})).subscriptions.filter((s) => !before.includes(s.id));
      expect(added).toHaveLength(1);
      return added[0]!;
    };

    it('takes an address, share links, an import link of each kind and a whole body, each confirmed before it is added', async () => {
      const plain = await bodyOf('plain');
      const links = plain.split('\n').filter((line) => /^[a-z0-9]+:\/\//.test(line));
      const address = `${labSub.url}?format=base64&box=address`;
      const kinds: [string, string, string][] = [
        ['a subscription address', address, new URL(address).host],
        ['one share link', links[0]!, 'Servers it holds: 1'],
        ['several share links', links.join('\n'), `Servers it holds: ${links.length}`],
        ['a v2rayN link', `v2rayn://install-sub?url=${encodeURIComponent(`${labSub.url}?format=plain&box=v2rayn`)}&name=Via%20v2rayN`, 'Via v2rayN'],
        ['a Hiddify link', `hiddify://import/${labSub.url}?format=json&box=hiddify#Via%20Hiddify`, 'Via Hiddify'],
        ['a Clash link', `clash://install-config?url=${encodeURIComponent(`${labSub.url}?format=clash&box=clash`)}&name=Via%20Clash`, 'Via Clash'],
        ['a sing-box link', `sing-box://import-remote-profile?url=${encodeURIComponent(`${labSub.url}?box=sing-box`)}#Via%20sing-box`, 'Via sing-box'],
        ['a steadfast link', `steadfast://install-sub?url=${encodeURIComponent(`${labSub.url}?box=steadfast`)}&name=Ours`, 'Ours'],
        ['a base64 body', await bodyOf('base64'), 'subscription’s contents (base64)'],
        ['a JSON body', await bodyOf('json'), 'subscription’s contents (sing-box-json)'],
        ['a YAML body', await bodyOf('clash'), 'subscription’s contents (clash-yaml)'],
      ];
      for (const [kind, text, shown] of kinds) {
        const added = await importThroughBox(text, shown);
        expect(added.servers.length, kind).toBeGreaterThan(0);
        expect(added.lastError, kind).toBeNull();
      }
      await screenshot(page, 'import-box-en');
      expect(app.errors).toEqual([]);
    });

    /** Offers `address` through the box and presses Add; returns the confirmation, now saying why nothing was added. */
    const failedImport = async (address: string) => {
      await page.getByRole('button', { name: 'Add subscription' }).click();
      await box().getByRole('textbox', { name: /^Address, links or subscription contents/ }).fill(address);
      await box().getByRole('button', { name: 'Continue', exact: true }).click();
      await dialog().getByRole('button', { name: 'Add', exact: true }).click();
      await dialog().getByRole('alert').filter({ hasText: /^Nothing was added: / }).waitFor();
      return dialog();
    };

    it('an unreachable subscription adds nothing and says why in words; declined, it is gone', async () => {
      const count = (await world.engine.getSnapshot({})).subscriptions.length;
      // A closed port on loopback: the connection is refused.
      const prompt = await failedImport('http://127.0.0.1:1/sub/nowhere');
      expect(await prompt.getByRole('alert').textContent()).toBe('Nothing was added: the provider’s server refused the connection.');
      expect(await prompt.getByRole('button', { name: 'Keep and retry later' }).count()).toBe(1);
      await screenshot(prompt, 'import-failed-en');
      expect((await world.engine.getSnapshot({})).subscriptions).toHaveLength(count);
      await prompt.getByRole('button', { name: 'Don’t add', exact: true }).click();
      await prompt.waitFor({ state: 'detached' });
      const after = await world.engine.getSnapshot({});
      expect(after.subscriptions).toHaveLength(count);
      expect(after.importRequests).toEqual([]);
    });

    it('an empty subscription is not kept, unless the user chooses Keep and retry later', async () => {
      const count = (await world.engine.getSnapshot({})).subscriptions.length;
      const address = `${labSub.url}?box=empty`;
      await world.lab.setSubscription(labSub.id, { mode: 'empty' });
      try {
        const prompt = await failedImport(address);
        expect(await prompt.getByRole('alert').textContent()).toBe('Nothing was added: the provider sent an empty response.');
        expect((await world.engine.getSnapshot({})).subscriptions).toHaveLength(count);
        await prompt.getByRole('button', { name: 'Keep and retry later', exact: true }).click();
        await prompt.waitFor({ state: 'detached' });
        const kept = (await world.engine.getSnapshot({})).subscriptions.find((s) => s.url === address);
        expect(kept).toMatchObject({ servers: [], lastErrorKind: 'empty-response' });
        await page.getByRole('status').getByText(/Kept .* without servers; it is fetched again at the next update\./).waitFor();
      } finally {
        await world.lab.setSubscription(labSub.id, { mode: 'ok' });
      }
    });

    it('says why it cannot add what is not a subscription, adds nothing and stays open', async () => {
      const count = (await world.engine.getSnapshot({})).subscriptions.length;
      await page.getByRole('button', { name: 'Add subscription' }).click();
      await box().getByRole('textbox', { name: /^Address, links or subscription contents/ }).fill('please send me a VPN');
      await box().getByRole('button', { name: 'Continue', exact: true }).click();
      // The engine names what it could not read; the window words it: what the text is not.
      await box().getByRole('alert').filter({ hasText: 'It cannot be read: it is not a share link, a subscription address' }).waitFor();
      const after = await world.engine.getSnapshot({});
      expect(after.subscriptions).toHaveLength(count);
      expect(after.importRequests).toEqual([]);
      await box().getByRole('button', { name: 'Cancel', exact: true }).click();
    });
  });
});

