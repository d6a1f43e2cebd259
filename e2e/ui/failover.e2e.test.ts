/**
 * The demo's promise: blackhole the current server from the Lab panel and watch Auto move the
 * traffic, in the timeline, within seconds. The traffic generator keeps the connection in use, so
 * Auto notices the stall (5 s on desktop) and checks; the current server's probe must then time out
 * before Auto calls it silent.
 *
 * The same run is issue 9's security check of a working app: the engine logs at debug level, and
 * afterwards no file it wrote outside its 0600 config files holds a UUID or password of the lab's
 * servers; every listening socket of the run, during the run, is on loopback.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AppPage, type DemoWorld, allTested, currentRowId, eventually, launchChromium, listenersOfThisRun, openApp, STRINGS, startWorld } from './harness';
import { scanDataDir, secretShapes } from './secrets';

const en = STRINGS.en;
/** Beyond the stall threshold and the probe timeout: stall detection's step and the UI update. */
const DELIVERY_SLACK_MS = 3000;

describe('blackholing the current server from the Lab panel', () => {
  let world: DemoWorld;
  let browser: Browser;
  let app: AppPage;
  let page: Page;

  beforeAll(async () => {
    world = await startWorld();
    await world.engine.setSettings({ logLevel: 'debug' });
    browser = await launchChromium();
    app = await openApp(browser, world.host.url);
    page = app.page;
    await allTested(world);
  });

  afterAll(async () => {
    await browser?.close();
    await world?.dispose();
  });

  it('shows Auto switching away in the timeline within the stall threshold plus the probe timeout', async () => {
    const { settings, connection } = await world.engine.getSnapshot({});
    const from = connection.serverId;
    if (!from) throw new Error('not connected');
    expect(await eventually('the current row marked', 10_000, () => currentRowId(page))).toBe(from);
    // The user's traffic flows through it (Auto only notices a stall while data is being sent).
    const answered = world.traffic.answered;
    await eventually('traffic through the tunnel', 10_000, () => (world.traffic.answered > answered ? true : undefined));

    const lab = page.getByRole('region', { name: en.lab });
    const blackholedAt = Date.now();
    await lab.getByRole('button', { name: en.blackhole }).click();

    const timeline = page.getByRole('img', { name: en.timelineFigure });
    const switchItem = page.locator('.decision-list .decision.tone-switch');
    await eventually('a switch in the timeline', 20_000, async () => ((await switchItem.count()) > 0 && (await timeline.locator('.marker-switch').count()) > 0 ? true : undefined), 50);
    const shownAfterMs = Date.now() - blackholedAt;
    console.log(`blackhole → switch shown in the timeline: ${shownAfterMs} ms (stall ${settings.stallThresholdMs} ms, probe timeout ${settings.monitor.urlTestTimeoutMs} ms)`);

    const headline = (await switchItem.first().locator('.decision-outcome').textContent()) ?? '';
    expect(headline).toContain('stopped answering');
    expect(await switchItem.first().locator('.decision-check').textContent()).toContain('traffic stalled');
    expect(shownAfterMs).toBeLessThanOrEqual(settings.stallThresholdMs + settings.monitor.urlTestTimeoutMs + DELIVERY_SLACK_MS);

    const to = await eventually('the connected marker on another server', 10_000, async () => {
      const id = await currentRowId(page);
      return id && id !== from ? id : undefined;
    });
    expect((await world.engine.getSnapshot({})).connection.serverId).toBe(to);
    // The traffic flows again, through the new server.
    const before = world.traffic.answered;
    await eventually('traffic through the new server', 10_000, () => (world.traffic.answered > before ? true : undefined));

    await lab.getByRole('button', { name: en.clearFaults }).click();
    expect(app.errors).toEqual([]);
    expect(app.refused).toEqual([]);
  });

  it('keeps every listening socket of the run on loopback, and the runtime configs 0600', () => {
    const { all, offLoopback, pids } = listenersOfThisRun();
    expect(all.some((l) => l.port === world.host.port)).toBe(true);
    expect(offLoopback, `listeners of pids ${pids.join(',')}`).toEqual([]);
    const running = scanDataDir(world.dataDir, []).configFiles;
    expect(running.some((f) => f.path.startsWith('runtime'))).toBe(true);
    expect(running.filter((f) => f.mode !== 0o600)).toEqual([]);
  });

  it('leaves no UUID or password of the servers in any file but its 0600 config files (debug log level)', async () => {
    await world.stop();
    const result = scanDataDir(world.dataDir, secretShapes(world.lab.world.servers.map((s) => ({ id: s.id, uuid: s.uuid, password: s.password, ssMethod: s.ssMethod }))));
    // The run logged at debug level and wrote its caches, so there was something to search.
    expect(result.scanned).toContain('app.log');
    expect(result.scanned.length).toBeGreaterThanOrEqual(3);
    const log = readFileSync(join(world.dataDir, 'app.log'), 'utf8');
    expect(log).toMatch(/ DEBUG /);
    expect(result.leaks).toEqual([]);
    expect(result.configFiles.map((f) => f.path)).toEqual(expect.arrayContaining(['subscriptions.json', 'settings.json']));
    expect(result.configFiles.filter((f) => f.mode !== 0o600)).toEqual([]);
  });
});
