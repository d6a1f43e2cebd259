/**
 * Writes assets/flags/: each country-flag-icons 3:2 flag as a PNG for the tray menu, 16 px high
 * (XX.png) and 32 px for high-density screens (XX@2x.png, which Electron's nativeImage picks up
 * beside it). A native menu takes bitmaps only, and no SVG rasteriser ships with the app, so the
 * flags are drawn once here by Chromium (the one the UI tests use) and the PNGs are committed:
 * building the app needs no browser. Run `npm run build:tray-flags` after upgrading
 * country-flag-icons (main/electron/tray-flags.test.ts fails until then).
 *
 *   npm run build:tray-flags [-- --chromium /path/to/chromium]
 */
import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { TRAY_FLAG_HEIGHTS, TRAY_FLAGS_DIR, trayFlagFile, type TrayFlagsIndex } from '../main/electron/tray-flags';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

async function main(): Promise<void> {
  const require = createRequire(import.meta.url);
  const packageDir = dirname(require.resolve('country-flag-icons/package.json'));
  const { version } = JSON.parse(await readFile(join(packageDir, 'package.json'), 'utf8')) as { version: string };
  const svgDir = join(packageDir, '3x2');
  const codes = (await readdir(svgDir)).filter((f) => /^[A-Z]{2}\.svg$/.test(f)).map((f) => f.slice(0, 2)).sort();
  const out = join(root, TRAY_FLAGS_DIR);
  await rm(out, { recursive: true, force: true });
  await mkdir(out, { recursive: true });

  const argAt = process.argv.indexOf('--chromium');
  const executablePath = argAt > 0 ? process.argv[argAt + 1] : (process.env.CHROMIUM_PATH ?? '/usr/bin/chromium');
  const browser = await chromium.launch({ executablePath, args: ['--no-sandbox', '--disable-gpu'] });
  try {
    const page = await browser.newPage();
    for (const code of codes) {
      const svg = await readFile(join(svgDir, `${code}.svg`), 'utf8');
      for (const [scale, height] of TRAY_FLAG_HEIGHTS.map((h, i) => [i + 1, h] as const)) {
        const dataUrl = await page.evaluate(
          async ({ svg, height }) => {
            const width = (height * 3) / 2;
            const image = new Image(width, height);
            image.src = `data:image/svg+xml;charset=utf-8,${encodeURIComponent(svg)}`;
            await image.decode();
            const canvas = document.createElement('canvas');
            canvas.width = width;
            canvas.height = height;
            canvas.getContext('2d')!.drawImage(image, 0, 0, width, height);
            return canvas.toDataURL('image/png');
          },
          { svg, height },
        );
        await writeFile(join(out, trayFlagFile(code, scale)), Buffer.from(dataUrl.slice(dataUrl.indexOf(',') + 1), 'base64'));
      }
    }
  } finally {
    await browser.close();
  }
  const index: TrayFlagsIndex = { source: 'country-flag-icons', version, heights: [...TRAY_FLAG_HEIGHTS], codes };
  await writeFile(join(out, 'index.json'), `${JSON.stringify(index, null, 2)}\n`);
  console.log(`tray flags: ${codes.length} flags from country-flag-icons ${version} in ${TRAY_FLAGS_DIR}/`);
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : String(error));
  process.exit(1);
});
