/**
 * The anti-DPI options in the real UI against the real engine (its main core, the bundled Xray
 * 26.3.27): Settings says plainly that this core can do them (v2ray's "not available" note is
 * unit-tested in the form's own tests), a bad range is named at its field and nothing is saved,
 * a global fragment and one server's own values are saved to settings.json as the user set them,
 * the forms show them again when reopened, and in Persian the page reads right to left.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ListServer } from '../../shared/ipc/contract';
import type { AntiDpiSettings } from '../../shared/settings';
import { type AppPage, type DemoWorld, allTested, eventually, launchChromium, openApp, screenshot, STRINGS, startWorld } from './harness';

const en = STRINGS.en;
const WORDS = {
  tab: 'Anti-censorship',
  fragmentOn: 'Split the first packet of each connection',
  pieceSize: /^Piece size/,
  pause: /^Pause between pieces/,
  packets: /^Packets/,
  available: '\u2068Xray 26.3.27\u2069 can do both.',
  rangeError: 'Enter a number or a range such as 10-20.',
  own: 'Values of its own',
  off: 'Off for this server',
  saveServer: 'Save for this server',
  saved: 'Saved for this server.',
};

describe('anti-censorship settings, global and per server', () => {
  let world: DemoWorld;
  let browser: Browser;
  let app: AppPage;
  let page: Page;
  let servers: ListServer[];

  /** The anti-DPI block as the app stored it. */
  const stored = (): AntiDpiSettings => (JSON.parse(readFileSync(join(world.dataDir, 'settings.json'), 'utf8')) as { antiDpi: AntiDpiSettings }).antiDpi;
  const field = (scope: Locator, name: RegExp) => scope.getByRole('textbox', { name });

  async function openSettingsPage(): Promise<{ dialog: Locator; tab: Locator }> {
    await page.getByRole('button', { name: en.settings, exact: true }).click();
    const dialog = page.getByRole('dialog', { name: en.settings });
    await dialog.getByRole('tab', { name: WORDS.tab }).click();
    return { dialog, tab: dialog.getByRole('tabpanel', { name: WORDS.tab }) };
  }

  async function openDetails(server: ListServer): Promise<Locator> {
    await page.getByRole('button', { name: en.details(server.name), exact: true }).click();
    return page.getByRole('dialog').getByRole('region', { name: WORDS.tab });
  }

  beforeAll(async () => {
    world = await startWorld();
    browser = await launchChromium();
    app = await openApp(browser, world.host.url, { height: 1200 });
    page = app.page;
    await allTested(world);
    const snapshot = await world.engine.getSnapshot({});
    servers = snapshot.subscriptions[0]?.servers ?? [];
    expect(servers.length).toBeGreaterThanOrEqual(2);
  });

  afterAll(async () => {
    await browser?.close();
    await world?.dispose();
  });

  it('sets a global fragment: says the core can do it, names a bad range, saves the good values', async () => {
    const { dialog, tab } = await openSettingsPage();
    await expect.poll(() => tab.getByRole('note').textContent()).toContain(WORDS.available);
    await tab.getByRole('checkbox', { name: WORDS.fragmentOn }).check();
    await field(tab, WORDS.pieceSize).fill('fifty');
    await dialog.getByRole('button', { name: en.save, exact: true }).click();
    await expect.poll(() => tab.getByText(WORDS.rangeError).count()).toBe(1);
    expect(await field(tab, WORDS.pieceSize).inputValue()).toBe('fifty');
    expect(stored().fragment.enabled).toBe(false);
    await screenshot(page, 'anti-dpi-settings-en');

    await field(tab, WORDS.pieceSize).fill('50-100');
    await field(tab, WORDS.pause).fill('5-10');
    const before = (await world.engine.getSnapshot({})).connection;
    expect(before.state).toBe('connected');
    await dialog.getByRole('button', { name: en.save, exact: true }).click();
    await dialog.waitFor({ state: 'detached' });
    const saved = await eventually('the fragment in settings.json', 5000, () => (stored().fragment.enabled ? stored() : undefined));
    expect(saved.fragment).toEqual({ enabled: true, packets: 'tlshello', length: '50-100', interval: '5-10' });
    expect(saved.noise.enabled).toBe(false);
    // Xray writes the fragment, so its core restarts on the same server: the user stays connected there.
    const after = await eventually('connected again after the restart', 10_000, async () => {
      const c = (await world.engine.getSnapshot({})).connection;
      return c.state === 'connected' ? c : undefined;
    });
    expect(after.serverId).toBe(before.serverId);
    expect(app.errors).toEqual([]);
  });

  it('gives one server values of its own and turns another off, each saved under its id', async () => {
    const [first, second] = servers as [ListServer, ListServer];
    let section = await openDetails(first);
    await section.getByRole('radio', { name: WORDS.own }).check();
    // Its own values start from the global ones just saved.
    expect(await field(section, WORDS.pieceSize).inputValue()).toBe('50-100');
    await field(section, WORDS.packets).fill('1-3');
    await field(section, WORDS.pause).fill('2-4');
    await section.getByRole('button', { name: WORDS.saveServer }).click();
    await expect.poll(() => section.getByRole('status').textContent()).toContain(WORDS.saved);
    await screenshot(page, 'anti-dpi-server-en');
    await page.getByRole('dialog').getByRole('button', { name: en.close, exact: true }).click();

    section = await openDetails(second);
    await section.getByRole('radio', { name: WORDS.off }).check();
    await section.getByRole('button', { name: WORDS.saveServer }).click();
    await expect.poll(() => section.getByRole('status').textContent()).toContain(WORDS.saved);
    await page.getByRole('dialog').getByRole('button', { name: en.close, exact: true }).click();

    const saved = await eventually('both overrides in settings.json', 5000, () => (Object.keys(stored().servers).length === 2 ? stored() : undefined));
    expect(saved.servers).toEqual({
      [first.id]: { fragment: { enabled: true, packets: '1-3', length: '50-100', interval: '2-4' }, noise: { enabled: false, type: 'rand', packet: '10-20', delay: '10-16' } },
      [second.id]: 'off',
    });
    // The global block is untouched by a server's override.
    expect(saved.fragment).toEqual({ enabled: true, packets: 'tlshello', length: '50-100', interval: '5-10' });
  });

  it('shows what was saved when the forms open again', async () => {
    const { dialog, tab } = await openSettingsPage();
    expect(await tab.getByRole('checkbox', { name: WORDS.fragmentOn }).isChecked()).toBe(true);
    expect(await field(tab, WORDS.pause).inputValue()).toBe('5-10');
    await dialog.getByRole('button', { name: en.cancel, exact: true }).click();
    const section = await openDetails(servers[0] as ListServer);
    expect(await section.getByRole('radio', { name: WORDS.own }).isChecked()).toBe(true);
    expect(await field(section, WORDS.packets).inputValue()).toBe('1-3');
    await page.getByRole('dialog').getByRole('button', { name: en.close, exact: true }).click();
    expect(app.errors).toEqual([]);
    expect(app.refused).toEqual([]);
  });

  it('lays the page out right to left in Persian, the ranges kept left to right', async () => {
    await page.getByRole('button', { name: en.settings, exact: true }).click();
    const english = page.getByRole('dialog', { name: en.settings });
    await english.getByLabel(en.language).selectOption('fa');
    await english.getByRole('button', { name: en.save, exact: true }).click();
    await english.waitFor({ state: 'detached' });
    await eventually('<html dir="rtl">', 5000, async () => ((await page.evaluate(() => document.documentElement.dir)) === 'rtl' ? true : undefined));

    await page.getByRole('button', { name: 'تنظیمات', exact: true }).click();
    const dialog = page.getByRole('dialog', { name: 'تنظیمات' });
    await dialog.getByRole('tab', { name: 'ضدسانسور' }).click();
    const tab = dialog.getByRole('tabpanel', { name: 'ضدسانسور' });
    await expect.poll(() => tab.getByRole('note').textContent()).toContain('\u2068Xray 26.3.27\u2069 هر دو را می‌تواند.');
    const length = field(tab, /^اندازهٔ هر تکه/);
    expect(await length.inputValue()).toBe('50-100');
    expect(await length.evaluate((input) => getComputedStyle(input).direction)).toBe('ltr');
    // Mirrored: a field's label starts at the right edge of the field.
    const label = await tab.getByText('اندازهٔ هر تکه (بایت)', { exact: true }).boundingBox();
    const box = await length.boundingBox();
    if (!label || !box) throw new Error('the field has no box');
    expect(Math.abs(label.x + label.width - (box.x + box.width))).toBeLessThan(2);
    await screenshot(page, 'anti-dpi-settings-fa');
    expect(app.errors).toEqual([]);
  });
});
