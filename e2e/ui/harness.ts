/**
 * What the browser tests share: Debian's Chromium driven by playwright-core against the demo
 * world's headless host, a page that may only talk to that host, the demo world with a data folder
 * the test owns, screenshots into e2e/artifacts/, and the loopback check of issue 9.
 *
 * The UI is found by role and accessible name, as a person using a screen reader would find it;
 * where the renderer's words are needed, `STRINGS` holds them per language (the e2e layer may not
 * import the renderer, see eslint.config.js).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Browser, type BrowserContext, chromium, type Locator, type Page } from 'playwright-core';
import { Logger } from '../../app/log/logger';
import { type Demo, type DemoOptions, startDemo } from '../demo/world';
import { descendants, isLoopback, type Listener, listenersOf } from '../lab/proc-net';
import type { ListStatus } from '../../shared/ipc/contract';

/** Where screenshots go (gitignored; CI keeps the folder). */
export const ARTIFACTS_DIR = fileURLToPath(new URL('../artifacts/', import.meta.url));

export const CHROMIUM_PATH = '/usr/bin/chromium';
export const CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run'];

/**
 * Debian's Chromium; with `namespace`, started inside that network namespace (`ip netns exec`, as
 * root), so the page reaches a host that listens on the namespace's own loopback. Playwright talks
 * to it over a pipe, which the namespace does not cut.
 */
export function launchChromium(options: { namespace?: string } = {}): Promise<Browser> {
  if (!options.namespace) return chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
  const dir = mkdtempSync(join(tmpdir(), 'steadfast-e2e-chromium-'));
  const wrapper = join(dir, 'chromium');
  writeFileSync(wrapper, `#!/bin/sh\nexec ip netns exec '${options.namespace.replace(/[^A-Za-z0-9-]/g, '')}' ${CHROMIUM_PATH} "$@"\n`, { mode: 0o700 });
  return chromium.launch({ executablePath: wrapper, args: CHROMIUM_ARGS }).then((browser) => {
    browser.on('disconnected', () => rmSync(dir, { recursive: true, force: true }));
    return browser;
  });
}

/** The renderer's words the tests look for, per language (renderer/src/i18n/locales). */
export const STRINGS = {
  en: {
    autoPrefix: 'Auto (',
    excludeTitle: 'Servers Auto will not use',
    lastUnmarked: 'At least one server must stay available to Auto.',
    excludedReason: 'the server was marked as excluded',
    excludedChip: 'Excluded from Auto',
    lab: 'Lab',
    blackhole: 'Blackhole the current server',
    clearFaults: 'Clear all faults',
    cutNetwork: 'Cut the network',
    restoreNetwork: 'Restore the network',
    networkLostPrefix: 'Network lost',
    rowMenu: (name: string) => `Actions for ${name}`,
    timelineFigure: 'Which server carried the traffic over the last 30 min',
    fromCache: 'from cache',
    ipNotConfirmed: 'IP not yet confirmed',
    settings: 'Settings',
    language: 'Language',
    save: 'Save',
    done: 'Done',
    cancel: 'Cancel',
    close: 'Close',
    testAll: 'Test all',
    details: (name: string) => `Details of ${name}`,
    update: (name: string) => `Update ${name}`,
  },
  fa: {
    autoPrefix: 'خودکار (',
    excludeTitle: 'سرورهایی که خودکار از آن‌ها استفاده نمی‌کند',
    lab: 'آزمایشگاه',
    close: 'بستن',
    details: (name: string) => `جزئیات ${name}`,
  },
} as const;

/** A logger that keeps the engine's log in its data folder (app.log) and prints only errors. */
export function testLogger(): Logger {
  return new Logger({ sinks: [(record, line) => (record.level === 'error' ? process.stderr.write(`${line}\n`) : undefined)] });
}

export interface DemoWorld extends Demo {
  /** Stops the demo and removes its data folder (unless `keepData`). */
  dispose(options?: { keepData?: boolean }): Promise<void>;
}

/** The demo world in a data folder the test owns (so it can read the files the app wrote). */
export async function startWorld(options: Partial<DemoOptions> = {}): Promise<DemoWorld> {
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'steadfast-e2e-ui-'));
  const demo = await startDemo({ logger: testLogger(), ...options, dataDir });
  let stopping: Promise<void> | null = null;
  const stop = () => (stopping ??= demo.stop());
  return {
    ...demo,
    stop,
    async dispose({ keepData = false } = {}) {
      await stop();
      if (!keepData) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export interface AppPage {
  page: Page;
  context: BrowserContext;
  /** Uncaught page errors and console errors. */
  errors: string[];
  /** Requests the page tried to make anywhere but the host (refused). */
  refused: string[];
}

/**
 * A fresh browser context on the app. Every request that is not for the host itself is refused
 * and recorded: the tests never let the page reach anything but loopback.
 */
export async function openApp(browser: Browser, url: string, options: { width?: number; height?: number; locale?: string } = {}): Promise<AppPage> {
  const context = await browser.newContext({
    viewport: { width: options.width ?? 1280, height: options.height ?? 800 },
    locale: options.locale ?? 'en-US',
    deviceScaleFactor: 1,
  });
  const errors: string[] = [];
  const refused: string[] = [];
  await guardContext(context, new URL(url).host, refused);
  // tsx keeps function names with a `__name` helper that does not exist in the page.
  await context.addInitScript('globalThis.__name = globalThis.__name || ((f) => f);');
  const page = await context.newPage();
  page.on('pageerror', (error) => errors.push(`page error: ${error.message}`));
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(`console: ${message.text()}`);
  });
  await page.goto(url);
  return { page, context, errors, refused };
}

/** Refuses (and records) every request whose host is not `host`. */
export async function guardContext(context: BrowserContext, host: string, refused: string[]): Promise<void> {
  await context.route('**/*', async (route) => {
    const target = new URL(route.request().url());
    if ((target.protocol === 'http:' || target.protocol === 'ws:') && target.host === host) return route.continue();
    if (target.protocol === 'data:' || target.protocol === 'blob:') return route.continue();
    refused.push(route.request().url());
    return route.abort('blockedbyclient');
  });
}

/** Points a page at a new host URL (after a restart), keeping the guard in step. */
export async function moveTo(app: AppPage, url: string): Promise<void> {
  await app.context.unrouteAll({ behavior: 'ignoreErrors' });
  await guardContext(app.context, new URL(url).host, app.refused);
  await app.page.goto(url);
}

export function rowOf(page: Page, serverId: string): Locator {
  return page.locator(`[role="listitem"][data-server-id="${serverId}"]`);
}

/** The row marked as the current server (aria-current), by its server id. */
export async function currentRowId(page: Page): Promise<string | null> {
  const current = page.locator('[role="listitem"][aria-current="true"]');
  if ((await current.count()) === 0) return null;
  return current.first().getAttribute('data-server-id');
}

/** Polls `probe` until it returns a value (not undefined), or fails with `what` after `timeoutMs`. */
export async function eventually<T>(what: string, timeoutMs: number, probe: () => Promise<T | undefined> | T | undefined, everyMs = 100): Promise<T> {
  const end = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value !== undefined) return value;
    } catch (error) {
      last = error;
    }
    if (Date.now() > end) throw new Error(`${what}: not within ${timeoutMs} ms${last instanceof Error ? ` (${last.message})` : ''}`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}

/** Waits until the engine has a ping and exit IP info for every server. */
export async function allTested(demo: Demo, timeoutMs = 30_000): Promise<Record<string, ListStatus>> {
  return eventually('every server tested with exit IP info', timeoutMs, async () => {
    const snapshot = await demo.engine.getSnapshot({});
    const ids = snapshot.subscriptions.flatMap((s) => s.servers.map((x) => x.id));
    const ready = ids.every((id) => {
      const status = snapshot.statuses[id];
      return status && status.delayMs !== null && status.ipInfo !== null && !status.fromCache && !status.ipInfo.fromCache;
    });
    return ready ? snapshot.statuses : undefined;
  }, 250);
}

/** Saves a screenshot of the page or one element as e2e/artifacts/NAME.png; returns the path. */
export async function screenshot(target: Page | Locator, name: string): Promise<string> {
  mkdirSync(ARTIFACTS_DIR, { recursive: true });
  const path = join(ARTIFACTS_DIR, `${name}.png`);
  await target.screenshot({ path, animations: 'disabled' });
  return path;
}

/**
 * Issue 9: every TCP listener held by this test process or any process it started (the lab's
 * v2ray, the engine's cores, Chromium) must be bound to 127.0.0.0/8 or ::1. Returns the listeners
 * (all, and those that are not on loopback).
 */
export function listenersOfThisRun(): { all: Listener[]; offLoopback: Listener[]; pids: number[] } {
  const pids = [process.pid, ...descendants(process.pid)];
  const all = listenersOf(pids);
  return { all, offLoopback: all.filter((listener) => !isLoopback(listener)), pids };
}

/** A PNG's pixels, decoded by the browser itself (a blank page: nothing of the app's). */
export async function pixelsOf(browser: Browser, png: Buffer): Promise<{ data: Uint8ClampedArray; width: number; height: number }> {
  const page = await browser.newPage();
  try {
    const { data, width, height } = await page.evaluate(async (url) => {
      const image = new Image();
      image.src = url;
      await image.decode();
      const canvas = document.createElement('canvas');
      canvas.width = image.naturalWidth;
      canvas.height = image.naturalHeight;
      const context = canvas.getContext('2d')!;
      context.drawImage(image, 0, 0);
      return { data: [...context.getImageData(0, 0, canvas.width, canvas.height).data], width: canvas.width, height: canvas.height };
    }, `data:image/png;base64,${png.toString('base64')}`);
    return { data: Uint8ClampedArray.from(data), width, height };
  } finally {
    await page.close();
  }
}
