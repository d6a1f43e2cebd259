/**
 * Per-app choice in system-wide mode: either the listed apps bypass the VPN, or only the listed
 * apps use it (one list is active; both are kept). An entry is one of:
 * - an executable's absolute path (`/usr/bin/firefox`, `C:\Program Files\App\app.exe`,
 *   `/Applications/Discord.app` for a whole macOS bundle);
 * - an executable's bare name (`firefox`, `Discord.exe`), matched wherever it runs from;
 * - `uid:N`, every program of one Linux user (the TPROXY capture's own identity).
 * An entry for an app that is not installed is kept: it may be installed later.
 */
import { z } from 'zod';

export const PER_APP_MODES = ['off', 'bypass', 'only'] as const;
export type PerAppMode = (typeof PER_APP_MODES)[number];

export type AppEntry = { kind: 'path'; path: string } | { kind: 'name'; name: string } | { kind: 'uid'; uid: number };

const WINDOWS_PATH = /^[A-Za-z]:[\\/]/;

/** What an entry names, or null when it is none of the three forms. */
export function appEntryOf(text: string): AppEntry | null {
  const entry = text.trim();
  if (entry === '' || entry.length > 1024 || /[\0\n\r"]/.test(entry)) return null;
  if (entry.startsWith('uid:')) {
    const uid = /^uid:(\d{1,10})$/.exec(entry);
    return uid && Number(uid[1]) <= 0xfffffffe ? { kind: 'uid', uid: Number(uid[1]) } : null;
  }
  if (entry.startsWith('/') || WINDOWS_PATH.test(entry)) return { kind: 'path', path: entry };
  if (/[\\/]/.test(entry)) return null;
  return { kind: 'name', name: entry };
}

const appEntry = z
  .string()
  .trim()
  .refine((text) => appEntryOf(text) !== null, 'an app is its full path (/usr/bin/app, C:\\…\\app.exe), its program name (app, app.exe) or uid:N');

export const perAppSettingsSchema = z
  .object({
    mode: z.enum(PER_APP_MODES),
    /** "These apps bypass the VPN." */
    bypass: z.array(appEntry).max(500),
    /** "Only these apps use the VPN." */
    only: z.array(appEntry).max(500),
  })
  .strict();
export type PerAppSettings = z.infer<typeof perAppSettingsSchema>;

export const DEFAULT_PER_APP: PerAppSettings = { mode: 'off', bypass: [], only: [] };

/** The active list's entries, parsed (empty when per-app choice is off). */
export function activeEntries(settings: PerAppSettings): AppEntry[] {
  if (settings.mode === 'off') return [];
  return settings[settings.mode].map((text) => appEntryOf(text)).filter((entry): entry is AppEntry => entry !== null);
}

/** A program the app picker offers. */
export interface PickerApp {
  name: string;
  /** The executable's absolute path: what a list entry holds. */
  path: string;
  /** A data: URL of its icon, when the platform gives one. */
  icon: string | null;
}

/** The app picker's programs, and which list entries are on this machine (an absent one is kept, shown as such). */
export interface AppListing {
  installed: PickerApp[];
  running: PickerApp[];
  present: Record<string, boolean>;
}
