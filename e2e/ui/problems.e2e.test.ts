/**
 * A damaged settings file never stops the app: it starts, sets the file aside, and tells the user
 * in the window until they dismiss it. The dismissal is the host's: a reload does not bring it back.
 */
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type InProcessLab, startLab } from '../lab';
import { type AppPage, type DemoWorld, launchChromium, openApp, startWorld } from './harness';

const HEADING = 'The app needs your attention';

describe('a damaged settings file', () => {
  let lab: InProcessLab;
  let dataDir: string;
  let world: DemoWorld | undefined;
  let browser: Browser;
  let app: AppPage;

  beforeAll(async () => {
    lab = await startLab({ servers: 4, subscriptions: 1, seed: 3 });
    dataDir = mkdtempSync(join(tmpdir(), 'steadfast-e2e-ui-'));
    writeFileSync(join(dataDir, 'settings.json'), '{"language": "en", "theme": '); // cut mid-write
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await world?.stop();
    await lab?.stop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it('is set aside, the app starts, and the window says so until the user dismisses it', async () => {
    world = await startWorld({ lab, dataDir });
    app = await openApp(browser, world.host.url);
    const region = app.page.getByRole('region', { name: HEADING });
    await expect.poll(() => region.count(), { timeout: 15_000 }).toBe(1);
    // Said in the user's words (the file's name isolated); the engine's sentence (path, reason) one click away.
    await expect.poll(() => region.getByText('\u2068settings.json\u2069 could not be read and no good copy was left, so that part starts empty.', { exact: false }).count()).toBe(1);
    await region.getByText('Details').click();
    await expect.poll(() => region.getByText(/settings\.json was unreadable \(not valid JSON\); starting empty/).isVisible()).toBe(true);
    // The damaged file is kept beside the folder's files, not deleted.
    expect(readdirSync(dataDir).some((name) => name.startsWith('settings.json.') && name !== 'settings.json.bak')).toBe(true);
    // The rest of the app works: the servers are listed.
    await expect.poll(() => app.page.locator('[role="listitem"][data-server-id]').count(), { timeout: 15_000 }).toBe(4);

    await region.getByRole('button', { name: 'Dismiss' }).click();
    await expect.poll(() => region.count()).toBe(0);
    await app.page.reload();
    await expect.poll(() => app.page.locator('[role="listitem"][data-server-id]').count(), { timeout: 15_000 }).toBe(4);
    expect(await region.count()).toBe(0);
    expect(app.errors).toEqual([]);
  });
});
