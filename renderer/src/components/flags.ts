/**
 * Country flags as SVG strings from country-flag-icons (emoji flags do not render everywhere, e.g.
 * on Windows and in headless Chromium). The whole set is one lazily loaded chunk (~180 kB), fetched
 * the first time a flag is drawn, so the first paint of the list does not wait for it.
 */
type FlagSet = Record<string, string>;

let flags: FlagSet | null = null;
let loading: Promise<void> | null = null;
const waiting = new Set<() => void>();

function load(): void {
  if (loading) return;
  loading = import('country-flag-icons/string/3x2').then(
    (module) => {
      flags = module as unknown as FlagSet;
      for (const notify of [...waiting]) notify();
    },
    () => {
      loading = null; // try again on the next flag
    },
  );
}

/** For useSyncExternalStore: notifies once the flag set has arrived. */
export function subscribeFlags(notify: () => void): () => void {
  waiting.add(notify);
  load();
  return () => waiting.delete(notify);
}

/** The SVG of an ISO 3166-1 alpha-2 code, or null while loading / for a code without a flag. */
export function flagSvg(code: string): string | null {
  if (!flags || !/^[A-Z]{2}$/.test(code)) return null;
  return flags[code] ?? null;
}

export function flagsLoaded(): boolean {
  return flags !== null;
}
