/**
 * What a newcomer sees within seconds of `npm run demo`: every lab server with its real ping, exit
 * IP, exit country and flag, in the built UI served by the headless host. The lab knows the truth
 * (each server's exit address, country and added latency), so every row is checked against it.
 * Also issue 9's rule for a running app: every listening socket of the run is on loopback.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AppPage, type DemoWorld, allTested, eventually, launchChromium, listenersOfThisRun, openApp, rowOf, STRINGS, startWorld } from './harness';

describe('the lab servers in the UI', () => {
  let world: DemoWorld;
  let browser: Browser;
  let app: AppPage;

  beforeAll(async () => {
    world = await startWorld({ intervalMs: 60_000 });
    browser = await launchChromium();
    // Tall enough that the 12 rows of the 3 subscriptions are all rendered by the virtual list.
    app = await openApp(browser, world.host.url, { height: 1400 });
  });

  afterAll(async () => {
    await browser?.close();
    await world?.dispose();
  });

  it('shows every lab server with its ping, exit IP, country and flag', async () => {
    const { page } = app;
    await allTested(world);
    const servers = (await world.engine.getSnapshot({})).subscriptions.flatMap((s) => s.servers);
    expect(servers).toHaveLength(world.lab.info.servers.length);

    for (const server of servers) {
      const truth = world.lab.info.servers.find((s) => s.id === world.labIdOf(server.id));
      if (!truth) throw new Error(`no lab server behind ${server.name}`);
      const row = rowOf(page, server.id);
      await expect.poll(() => row.locator('.exit-ip').textContent(), { timeout: 10_000 }).toBe(truth.exitIp);
      // The country's English name as the browser's own ICU spells it ("Hong Kong"; Node says
      // "Hong Kong SAR China").
      const countryName = await page.evaluate((code) => new Intl.DisplayNames(['en'], { type: 'region' }).of(code), truth.country);
      const flag = row.locator('.row-exit').getByRole('img', { name: countryName, exact: true });
      expect(await flag.getAttribute('data-country')).toBe(truth.country);
      // The flag is drawn (an inline SVG from country-flag-icons), not a placeholder.
      expect(await flag.locator('svg').count()).toBe(1);
      expect((await row.locator('.country-name').textContent())?.trim()).toBe(countryName);

      // The ping reads "315 ms"; the relay adds the lab's latency in each direction, so one round
      // trip costs at least twice that, and not much more on loopback.
      const pingText = await eventually(`ping of ${server.name}`, 10_000, async () => {
        const text = (await row.locator('.ping').first().textContent())?.trim() ?? '';
        return /^\d+\s?ms$/u.test(text) ? text : undefined;
      });
      const pingMs = Number(pingText.replace(/\D/g, ''));
      expect(pingMs, `${server.name} (${truth.id}, ${truth.latencyMs} ms each way)`).toBeGreaterThanOrEqual(2 * truth.latencyMs);
      expect(pingMs, `${server.name} (${truth.id}, ${truth.latencyMs} ms each way)`).toBeLessThan(2 * truth.latencyMs + 1500);
      // The accessible reading of the ping is the same text ("315 ms").
      await expect.poll(() => row.getByText(/^\d+\s?ms$/u).count()).toBe(1);
    }
    // Fresh results, not last run's: no cache badges anywhere.
    expect(await page.getByText(STRINGS.en.fromCache, { exact: true }).count()).toBe(0);
    expect(await page.getByText(STRINGS.en.ipNotConfirmed, { exact: true }).count()).toBe(0);
    expect(app.errors).toEqual([]);
    expect(app.refused).toEqual([]);
  });

  it('shows the connection through the current server and its exit in the top bar', async () => {
    const snapshot = await world.engine.getSnapshot({});
    expect(snapshot.connection.state).toBe('connected');
    const current = rowOf(app.page, snapshot.connection.serverId as string);
    expect(await current.getAttribute('aria-current')).toBe('true');
    // Shown as "HTTP 127.0.0.1:PORT" beside its copy button (the whole URL is in its tooltip).
    const httpAddress = (snapshot.connection.httpProxy as string).replace(/^http:\/\//, '');
    expect(await app.page.getByText(httpAddress, { exact: true }).count()).toBeGreaterThan(0);
    expect(await app.page.getByTitle(snapshot.connection.httpProxy as string).count()).toBeGreaterThan(0);
  });

  it('has every listening socket of the run (lab, cores, host, browser) on loopback', () => {
    const { all, offLoopback, pids } = listenersOfThisRun();
    // The host, the lab's relays and target, the tunnel's inbounds and the prober's: many sockets.
    expect(all.length).toBeGreaterThan(world.lab.info.servers.length);
    expect(all.some((l) => l.port === world.host.port)).toBe(true);
    expect(offLoopback, `listeners of pids ${pids.join(',')}`).toEqual([]);
  });
});
