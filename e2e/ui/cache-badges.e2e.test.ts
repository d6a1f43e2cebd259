/**
 * After a restart the app shows what it knew at once, honestly labelled: each row's ping carries a
 * "from cache" badge and its exit IP "IP not yet confirmed", until a fresh test of this run
 * replaces them. Two engines in turn on the same data folder and the same lab, as a user quitting
 * and starting the app again.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type InProcessLab, startLab } from '../lab';
import { type AppPage, type DemoWorld, allTested, eventually, launchChromium, moveTo, openApp, rowOf, STRINGS, startWorld } from './harness';

/** Slower relays during the restart, so the page is up before the first fresh result lands. */
const RESTART_EXTRA_LATENCY_MS = 300;

/**
 * Records, for each server row the first time it is in the page, which badges it showed then: the
 * "at once" of the rule, independent of how fast the test reads the page afterwards.
 */
const RECORD_FIRST_RENDER = `
  window.__firstSeen = {};
  new MutationObserver(() => {
    for (const row of document.querySelectorAll('[role="listitem"][data-server-id]')) {
      const id = row.getAttribute('data-server-id');
      if (window.__firstSeen[id]) continue;
      window.__firstSeen[id] = {
        fromCache: !!row.querySelector('.badge-cache'),
        ipNotConfirmed: !!row.querySelector('.badge-unconfirmed'),
        ping: row.querySelector('.ping')?.textContent ?? '',
      };
    }
  }).observe(document, { childList: true, subtree: true });
`;

interface FirstSeen {
  fromCache: boolean;
  ipNotConfirmed: boolean;
  ping: string;
}

describe('after a restart', () => {
  let lab: InProcessLab;
  let dataDir: string;
  let first: DemoWorld | undefined;
  let second: DemoWorld | undefined;
  let browser: Browser;
  let app: AppPage;

  beforeAll(async () => {
    lab = await startLab({ servers: 12, subscriptions: 3, seed: 1, latency: [20, 300] });
    dataDir = mkdtempSync(join(tmpdir(), 'steadfast-e2e-ui-'));
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await first?.stop();
    await second?.stop();
    await lab?.stop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it('shows "from cache" and "IP not yet confirmed" at once, then fresh results replace them', async () => {
    // First run: every server tested, results and exit IPs cached on the way out.
    first = await startWorld({ lab, dataDir });
    app = await openApp(browser, first.host.url, { height: 1400 });
    const firstRun = await allTested(first);
    const ids = Object.keys(firstRun);
    expect(ids).toHaveLength(12);
    await expect.poll(() => app.page.locator('[role="listitem"][data-server-id] .ping').count()).toBe(12);
    expect(await app.page.getByText(STRINGS.en.fromCache, { exact: true }).count()).toBe(0);
    await first.stop();

    // Second run on the same folder; the page reloads the new host's address.
    for (const server of lab.info.servers) await lab.setFault(server.id, { latencyMs: server.latencyMs + RESTART_EXTRA_LATENCY_MS });
    await app.context.addInitScript(RECORD_FIRST_RENDER);
    second = await startWorld({ lab, dataDir });
    await moveTo(app, second.host.url);
    // The old page's failed reconnects to the stopped host were expected; count errors from here.
    app.errors.length = 0;
    const firstSeen = await eventually('every row rendered', 10_000, async () => {
      const seen = await app.page.evaluate(() => (window as unknown as { __firstSeen: Record<string, FirstSeen> }).__firstSeen);
      return Object.keys(seen).length === ids.length ? seen : undefined;
    });
    for (const server of lab.info.servers) await lab.setFault(server.id, { latencyMs: server.latencyMs });

    for (const id of ids) {
      const seen = firstSeen[id];
      expect(seen, `row ${id} at its first render`).toMatchObject({ fromCache: true, ipNotConfirmed: true });
      // The cached ping itself is shown, not "not tested".
      expect(seen?.ping, `row ${id}`).toMatch(/^\d+\s?ms$/u);
      expect(seen?.ping.replace(/\D/g, '')).toBe(String(firstRun[id]?.delayMs));
    }

    // Fresh tests of this run land (the demo tests everything at start; Test all if it is idle).
    const testAll = app.page.getByRole('button', { name: STRINGS.en.testAll });
    if (await testAll.isEnabled()) await testAll.click();
    await eventually('every badge cleared by a fresh result', 30_000, async () => {
      const badges = await app.page.locator('.badge-cache, .badge-unconfirmed').count();
      return badges === 0 ? true : undefined;
    }, 250);
    for (const id of ids) {
      await expect.poll(() => rowOf(app.page, id).locator('.ping').first().textContent()).toMatch(/^\d+\s?ms$/u);
    }
    const fresh = (await second.engine.getSnapshot({})).statuses;
    expect(ids.filter((id) => fresh[id]?.fromCache || fresh[id]?.ipInfo?.fromCache)).toEqual([]);
    expect(app.errors).toEqual([]);
    expect(app.refused).toEqual([]);
  });
});
