import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { countryNamer, loadTrayFlags, TRAY_FLAG_HEIGHTS, TRAY_FLAGS_DIR, trayFlagFile, type TrayFlagsIndex, trayName } from './tray-flags';

const flagsDir = join(process.cwd(), TRAY_FLAGS_DIR);
const packageDir = dirname(createRequire(import.meta.url).resolve('country-flag-icons/package.json'));

function pngSize(path: string): [number, number] {
  const data = readFileSync(path);
  expect(data.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
  return [data.readUInt32BE(16), data.readUInt32BE(20)];
}

describe('the tray’s flag images (assets/flags)', () => {
  const index = JSON.parse(readFileSync(join(flagsDir, 'index.json'), 'utf8')) as TrayFlagsIndex;

  it('are drawn from the installed country-flag-icons, every flag it has (else run npm run build:tray-flags)', () => {
    const { version } = JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8')) as { version: string };
    expect(index.version).toBe(version);
    const installed = readdirSync(join(packageDir, '3x2')).filter((f) => /^[A-Z]{2}\.svg$/.test(f)).map((f) => f.slice(0, 2)).sort();
    expect(index.codes).toEqual(installed);
  });

  it('are PNGs 16 px high (32 px at 2x), 3:2 like the window’s', () => {
    for (const code of index.codes) {
      TRAY_FLAG_HEIGHTS.forEach((height, i) => expect(pngSize(join(flagsDir, trayFlagFile(code, i + 1))), `${code} ${height}px`).toEqual([(height * 3) / 2, height]));
    }
  });

  it('are found by code; a code without a flag, or a missing folder, gives none', () => {
    const flagPath = loadTrayFlags(flagsDir);
    expect(flagPath('DE')).toBe(join(flagsDir, 'DE.png'));
    expect(flagPath('XX')).toBeNull();
    expect(loadTrayFlags(mkdtempSync(join(tmpdir(), 'no-flags-')))('DE')).toBeNull();
  });
});

describe('trayName: a name with emoji flags as the tray menu shows it', () => {
  const english = countryNamer('en');
  it.each([
    ['no flag: as written', 'Frankfurt 1', { text: 'Frankfurt 1', flag: null }],
    ['the flag is read as its country', '🇩🇪 Frankfurt', { text: 'Germany Frankfurt', flag: 'DE' }],
    ['a name that says the country already does not say it twice', '🇩🇪 Germany', { text: 'Germany', flag: 'DE' }],
    ['two flags: both named, the first is the icon', '🇩🇪🇳🇱 relay', { text: 'Germany Netherlands relay', flag: 'DE' }],
    ['a flag at the end', 'Fast 🇯🇵', { text: 'Fast Japan', flag: 'JP' }],
    ['a pair that names no country stays as written', '🇽🇽 Test', { text: '🇽🇽 Test', flag: null }],
  ])('%s', (_name, name, expected) => {
    expect(trayName(name, english)).toEqual(expected);
  });

  it('names the country in the tray’s language', () => {
    expect(trayName('🇩🇪 Frankfurt', countryNamer('ru'))).toEqual({ text: 'Германия Frankfurt', flag: 'DE' });
  });
});
