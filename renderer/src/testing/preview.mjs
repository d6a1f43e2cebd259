// Test-only, dev-only: builds the renderer, serves it with a fake `window.vpn` (preview-entry.ts)
// on 127.0.0.1, and takes Chromium screenshots of the main view, the dialog, the chart and the
// timeline in English and Persian. Usage: node renderer/src/testing/preview.mjs [OUT_DIR]
import { createReadStream } from 'node:fs';
import { mkdir, readFile, stat } from 'node:fs/promises';
import { createServer } from 'node:http';
import { extname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { build } from 'vite';

const here = fileURLToPath(new URL('.', import.meta.url));
const repo = resolve(here, '../../..');
const dist = join(repo, 'dist/renderer');
const fakeDir = join(repo, 'dist/renderer-preview');
const out = resolve(process.argv[2] ?? join(repo, 'dist/preview-shots'));

await build({ configFile: join(repo, 'renderer/vite.config.ts'), logLevel: 'warn' });
await build({
  configFile: false,
  logLevel: 'warn',
  build: {
    outDir: fakeDir,
    emptyOutDir: true,
    lib: { entry: join(here, 'preview-entry.ts'), formats: ['iife'], name: 'preview', fileName: () => 'fake-vpn.js' },
  },
});

const types = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css', '.svg': 'image/svg+xml', '.map': 'application/json' };
const index = (await readFile(join(dist, 'index.html'), 'utf8')).replace('<script type="module"', '<script src="./fake-vpn.js"></script>\n    <script type="module"');
const server = createServer(async (req, res) => {
  const path = new URL(req.url ?? '/', 'http://x').pathname;
  if (path === '/' || path === '/index.html') {
    res.writeHead(200, { 'content-type': 'text/html' }).end(index);
    return;
  }
  const file = path === '/fake-vpn.js' ? join(fakeDir, 'fake-vpn.js') : join(dist, path);
  if (!file.startsWith(dist) && !file.startsWith(fakeDir)) return void res.writeHead(403).end();
  try {
    await stat(file);
    res.writeHead(200, { 'content-type': types[extname(file)] ?? 'application/octet-stream' });
    createReadStream(file).pipe(res);
  } catch {
    res.writeHead(404).end();
  }
});
await new Promise((ok) => server.listen(0, '127.0.0.1', ok));
const origin = `http://127.0.0.1:${server.address().port}`;

await mkdir(out, { recursive: true });
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking'] });
const errors = [];
try {
  for (const [lang, theme] of [['en', 'light'], ['fa', 'light'], ['en', 'dark'], ['fa', 'dark']]) {
    const page = await browser.newPage({ viewport: { width: 1440, height: 900 }, deviceScaleFactor: 1 });
    page.on('pageerror', (error) => errors.push(`${lang}: ${error.message}`));
    page.on('console', (message) => message.type() === 'error' && errors.push(`${lang} console: ${message.text()}`));
    await page.goto(`${origin}/?lang=${lang}&theme=${theme}`);
    await page.waitForSelector('.server-row');
    await page.waitForSelector('.flag svg');
    const name = `${lang}-${theme}`;
    await page.screenshot({ path: join(out, `main-${name}.png`) });
    if (theme === 'light') {
      await page.locator('.auto-toggle').first().click({ button: 'right' });
      await page.waitForSelector('[role=dialog]');
      await page.screenshot({ path: join(out, `exclude-dialog-${name}.png`) });
      await page.keyboard.press('Escape');
      await page.locator('.server-row').first().locator('.row-actions button').nth(1).click();
      await page.waitForSelector('.ping-chart svg');
      await page.waitForTimeout(300);
      await page.screenshot({ path: join(out, `details-chart-${name}.png`) });
      await page.keyboard.press('Escape');
      await page.locator('.timeline-panel').screenshot({ path: join(out, `timeline-${name}.png`) });
      await page.locator('button.icon-button.large').click();
      await page.waitForSelector('[role=dialog]');
      await page.screenshot({ path: join(out, `settings-${name}.png`) });
    }
    await page.close();
  }
  for (const [lang, width, height] of [['en', 1180, 780], ['fa', 1180, 780], ['en', 800, 560], ['fa', 800, 560]]) {
    const page = await browser.newPage({ viewport: { width, height } });
    page.on('pageerror', (error) => errors.push(`${lang} ${width}: ${error.message}`));
    await page.goto(`${origin}/?lang=${lang}`);
    await page.waitForSelector('.flag svg');
    await page.screenshot({ path: join(out, `window-${width}x${height}-${lang}.png`) });
    await page.close();
  }
  const big = await browser.newPage({ viewport: { width: 1440, height: 900 } });
  const started = Date.now();
  await big.goto(`${origin}/?servers=5000`);
  await big.waitForSelector('.server-row');
  const firstRenderMs = Date.now() - started;
  await big.locator('.server-scroller').evaluate((el) => el.scrollTo(0, 120_000));
  await big.waitForTimeout(200);
  await big.screenshot({ path: join(out, 'main-5000-scrolled.png') });
  console.log(JSON.stringify({ out, first_render_5000_ms: firstRenderMs, rows_in_dom: await big.locator('.server-row').count(), errors }));
} finally {
  await browser.close();
  server.close();
}
