import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { hasFlags, splitFlags } from '../../shared/domain/name-flags';

/**
 * The tray menu's flags: a native menu shows bitmaps only, so the window's flag images
 * (country-flag-icons) come as PNGs drawn once by scripts/tray-flags.ts into assets/flags/.
 */
export const TRAY_FLAGS_DIR = 'assets/flags';
/** Pixel heights, one per scale factor (1x, 2x); the flags are 3:2. */
export const TRAY_FLAG_HEIGHTS = [16, 32] as const;

/** assets/flags/index.json: what the PNGs were drawn from. */
export interface TrayFlagsIndex {
  source: 'country-flag-icons';
  version: string;
  heights: number[];
  /** ISO 3166-1 alpha-2 codes with a PNG at every height. */
  codes: string[];
}

/** "DE.png", and "DE@2x.png" beside it (Electron's nativeImage loads the @2x file on dense screens). */
export function trayFlagFile(code: string, scale = 1): string {
  return scale === 1 ? `${code}.png` : `${code}@${scale}x.png`;
}

/** The PNG paths of the flags in `dir` by code; none when the folder is missing or unreadable. */
export function loadTrayFlags(dir: string): (code: string) => string | null {
  let codes: Set<string>;
  try {
    codes = new Set((JSON.parse(readFileSync(join(dir, 'index.json'), 'utf8')) as TrayFlagsIndex).codes);
  } catch {
    codes = new Set();
  }
  return (code) => (codes.has(code) ? join(dir, trayFlagFile(code)) : null);
}

/** A name as the tray shows it: its text, and the country of its first flag (drawn as the item's icon). */
export interface TrayName {
  text: string;
  flag: string | null;
}

/**
 * "🇩🇪 Frankfurt" → "Germany Frankfurt" with the German flag: the emoji, which menus without an
 * emoji font show as boxes, becomes the country's name, as the window reads it out; a name that
 * already says the country ("🇩🇪 Germany") is not made to say it twice. A pair that names no
 * country stays as written.
 */
export function trayName(name: string, countryName: (code: string) => string | null): TrayName {
  if (!hasFlags(name)) return { text: name, flag: null };
  const parts = splitFlags(name);
  const plain = parts.map((part) => ('text' in part ? part.text : '')).join('').toLocaleLowerCase();
  let flag: string | null = null;
  const text = parts
    .map((part) => {
      if ('text' in part) return part.text;
      const country = countryName(part.flag);
      if (!country) return part.emoji;
      flag ??= part.flag;
      return plain.includes(country.toLocaleLowerCase()) ? ' ' : ` ${country} `;
    })
    .join('')
    .replace(/\s+/g, ' ')
    .trim();
  return { text, flag };
}

/** Country names in the tray's language (Electron has full ICU), English where it has none. */
export function countryNamer(language: string): (code: string) => string | null {
  let names: Intl.DisplayNames | null;
  try {
    names = new Intl.DisplayNames([language, 'en'], { type: 'region', fallback: 'none' });
  } catch {
    names = null;
  }
  return (code) => {
    try {
      return names?.of(code) ?? null;
    } catch {
      return null;
    }
  };
}
