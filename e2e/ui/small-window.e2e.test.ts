/**
 * A small window (900×600) stacks the panes, the timeline under the list: the page is then the one
 * thing that scrolls, never the list in a small box inside a page that scrolls too. The list stays
 * virtualized in the page's scroller (its last row is reached by scrolling the page). At 1280×800
 * the panes stand side by side and the list scrolls in its own pane while the page does not.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DemoWorld, allTested, launchChromium, openApp, startWorld } from './harness';

/** Every element that scrolls vertically now (its content taller than its box), and the page's own scroll. */
function scrollers(page: Page): Promise<{ boxes: string[]; pageScrolls: boolean }> {
  return page.evaluate(() => {
    const boxes = Array.from(document.querySelectorAll<HTMLElement>('body *'))
      .filter((el) => {
        const overflow = getComputedStyle(el).overflowY;
        return (overflow === 'auto' || overflow === 'scroll') && el.scrollHeight > el.clientHeight + 1 && el.clientHeight > 0;
      })
      .map((el) => `${el.tagName.toLowerCase()}.${el.className} (${el.clientHeight} of ${el.scrollHeight} px)`);
    return { boxes, pageScrolls: document.documentElement.scrollHeight > window.innerHeight + 1 };
  });
}

describe('the window at 900×600 and 1280×800', () => {
  let world: DemoWorld;
  let browser: Browser;

  beforeAll(async () => {
    world = await startWorld();
    browser = await launchChromium();
    await allTested(world);
  });

  afterAll(async () => {
    await browser?.close();
    await world?.dispose();
  });

  it('at 900×600 the page is the one scroller, and the list in it reaches its last row', async () => {
    const app = await openApp(browser, world.host.url, { width: 900, height: 600 });
    const page = app.page;
    await page.waitForSelector('[role="listitem"][data-server-id]');
    const found = await scrollers(page);
    expect(found.boxes).toHaveLength(1);
    expect(found.boxes[0]).toMatch(/^main\.layout /);
    expect(found.pageScrolls).toBe(false);

    // The last server is reached by scrolling that one scroller, and drawn where it is.
    const ids = (await world.engine.getSnapshot({})).subscriptions.flatMap((s) => s.servers.map((x) => x.id));
    const last = ids[ids.length - 1] as string;
    // Scroll the page until the list's end meets the window's bottom edge.
    const top = await page.locator('main.layout').evaluate((layout) => {
      const list = layout.querySelector('.server-scroller') as HTMLElement;
      layout.scrollBy(0, list.getBoundingClientRect().bottom - layout.getBoundingClientRect().bottom);
      return layout.getBoundingClientRect().top;
    });
    const row = page.locator(`[role="listitem"][data-server-id="${last}"]`);
    await row.waitFor({ state: 'visible', timeout: 5000 });
    const box = (await row.boundingBox())!;
    expect(box.y).toBeGreaterThanOrEqual(top);
    expect(box.y + box.height).toBeLessThanOrEqual(600 + 1);
    // The timeline follows the list in the same scroller, below its last row.
    const timeline = (await page.locator('.side-pane').boundingBox())!;
    expect(timeline.y).toBeGreaterThanOrEqual(box.y + box.height);
    expect(app.errors).toEqual([]);
    await app.context.close();
  });

  it('at 1280×800 the list scrolls in its own pane and the page does not', async () => {
    const app = await openApp(browser, world.host.url, { width: 1280, height: 800 });
    const page = app.page;
    await page.waitForSelector('[role="listitem"][data-server-id]');
    const found = await scrollers(page);
    expect(found.boxes.some((b) => b.startsWith('div.server-scroller '))).toBe(true);
    expect(found.boxes.some((b) => b.startsWith('main.layout '))).toBe(false);
    expect(found.pageScrolls).toBe(false);
    expect(app.errors).toEqual([]);
    await app.context.close();
  });
});
