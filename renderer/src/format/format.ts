/**
 * Numbers, sizes, rates, dates and durations in the UI language, through Intl (so Persian shows
 * Persian digits, Arabic its own separators, and so on). One formatter set per language.
 */
export interface Formatters {
  language: string;
  /** "63 ms" */
  ms(value: number): string;
  /** "12.3 MB" (kB and up) */
  bytes(value: number): string;
  /** "1.2 MB/s" */
  rate(bytesPerSecond: number): string;
  /** "1,024" */
  number(value: number, fractionDigits?: number): string;
  /** "45%" */
  percent(fraction: number): string;
  /** "14:02:05" */
  time(epochMs: number): string;
  /** "14:02" (axis ticks) */
  clock(epochMs: number): string;
  /** "Mar 3, 2025" */
  date(epochMs: number): string;
  /** "Mar 3, 2025, 14:02" */
  dateTime(epochMs: number): string;
  /**
   * A calendar day given as "2026-06-17" (a data file's date), in the language's calendar and
   * digits (Solar Hijri with Persian digits in Persian); the text itself when it is no such day.
   */
  day(isoDate: string): string;
  /** "3 minutes ago" / "in 2 days" */
  relative(epochMs: number, nowMs: number): string;
  /** "2 min" / "30 s" / "1 h 5 min" */
  duration(ms: number): string;
}

const SIZE_UNITS = ['kilobyte', 'megabyte', 'gigabyte', 'terabyte'] as const;

/** Sizes in kB and up (decimal units, as network speeds are quoted). */
function scaled(value: number): { amount: number; unit: (typeof SIZE_UNITS)[number] } {
  let amount = Math.max(0, value) / 1000;
  let step = 0;
  while (amount >= 1000 && step < SIZE_UNITS.length - 1) {
    amount /= 1000;
    step += 1;
  }
  return { amount, unit: SIZE_UNITS[step]! };
}

/**
 * How long a date is written, per language: medium by default; Arabic names the month (its locale
 * file says why).
 */
const DATE_STYLE: Readonly<Record<string, 'medium' | 'long'>> = { ar: 'long' };

const cache = new Map<string, Formatters>();

/** `make()`'s value, made on the first call and kept. */
function lazy<T>(make: () => T): () => T {
  let made: T | undefined;
  return () => (made ??= make());
}

export function formattersFor(language: string): Formatters {
  const cached = cache.get(language);
  if (cached) return cached;
  // Building an Intl formatter costs far more than using one, and the first of each kind in a
  // window loads its locale data (tens of ms on a slow machine, all before the first rows show).
  // So each is built on its first use and kept: the list's first frame builds only what it shows.
  const unit = (u: string, digits: number) => lazy(() => new Intl.NumberFormat(language, { style: 'unit', unit: u, unitDisplay: 'short', maximumFractionDigits: digits }));
  const msFormat = unit('millisecond', 0);
  const sizeFormats = new Map<string, () => Intl.NumberFormat>();
  const sizeFormat = (u: string, digits: number) => {
    const key = `${u}:${digits}`;
    let format = sizeFormats.get(key);
    if (!format) sizeFormats.set(key, (format = unit(u, digits)));
    return format();
  };
  const timeFormat = lazy(() => new Intl.DateTimeFormat(language, { hour: '2-digit', minute: '2-digit', second: '2-digit' }));
  const clockFormat = lazy(() => new Intl.DateTimeFormat(language, { hour: '2-digit', minute: '2-digit' }));
  const dateStyle = DATE_STYLE[language] ?? 'medium';
  const dateFormat = lazy(() => new Intl.DateTimeFormat(language, { dateStyle }));
  const dateTimeFormat = lazy(() => new Intl.DateTimeFormat(language, { dateStyle, timeStyle: 'short' }));
  // A day is no instant: read and written in UTC, it is the same day in every time zone.
  const dayFormat = lazy(() => new Intl.DateTimeFormat(language, { dateStyle, timeZone: 'UTC' }));
  const relativeFormat = lazy(() => new Intl.RelativeTimeFormat(language, { numeric: 'auto' }));
  const percentFormat = lazy(() => new Intl.NumberFormat(language, { style: 'percent', maximumFractionDigits: 0 }));
  // One per precision ("Testing n of m" formats two numbers per result during Test all).
  const numberFormats = new Map<number, Intl.NumberFormat>();
  const numberFormat = (fractionDigits: number) => {
    let format = numberFormats.get(fractionDigits);
    if (!format) numberFormats.set(fractionDigits, (format = new Intl.NumberFormat(language, { maximumFractionDigits: fractionDigits })));
    return format;
  };
  const seconds = unit('second', 0);
  const minutes = unit('minute', 0);
  const hours = unit('hour', 0);
  const days = unit('day', 0);

  const formatters: Formatters = {
    language,
    ms: (value) => msFormat().format(Math.round(value)),
    bytes: (value) => {
      const { amount, unit: u } = scaled(value);
      return sizeFormat(u, amount < 100 ? 1 : 0).format(amount);
    },
    rate: (bytesPerSecond) => {
      const { amount, unit: u } = scaled(bytesPerSecond);
      return sizeFormat(`${u}-per-second`, amount < 100 ? 1 : 0).format(amount);
    },
    number: (value, fractionDigits = 0) => numberFormat(fractionDigits).format(value),
    percent: (fraction) => percentFormat().format(fraction),
    time: (epochMs) => timeFormat().format(epochMs),
    clock: (epochMs) => clockFormat().format(epochMs),
    date: (epochMs) => dateFormat().format(epochMs),
    dateTime: (epochMs) => dateTimeFormat().format(epochMs),
    day: (isoDate) => {
      const at = /^\d{4}-\d{2}-\d{2}$/.test(isoDate) ? Date.parse(`${isoDate}T00:00:00Z`) : Number.NaN;
      return Number.isNaN(at) ? isoDate : dayFormat().format(at);
    },
    relative: (epochMs, nowMs) => {
      const delta = epochMs - nowMs;
      const abs = Math.abs(delta);
      if (abs < 45_000) return relativeFormat().format(Math.round(delta / 1000), 'second');
      if (abs < 45 * 60_000) return relativeFormat().format(Math.round(delta / 60_000), 'minute');
      if (abs < 22 * 3_600_000) return relativeFormat().format(Math.round(delta / 3_600_000), 'hour');
      return relativeFormat().format(Math.round(delta / 86_400_000), 'day');
    },
    duration: (ms) => {
      const total = Math.max(0, Math.round(ms / 1000));
      if (total < 60) return seconds().format(total);
      if (total < 3600) {
        const m = Math.floor(total / 60);
        const s = total % 60;
        return s === 0 || m >= 10 ? minutes().format(m) : `${minutes().format(m)} ${seconds().format(s)}`;
      }
      if (total < 86_400) {
        const h = Math.floor(total / 3600);
        const m = Math.floor((total % 3600) / 60);
        return m === 0 ? hours().format(h) : `${hours().format(h)} ${minutes().format(m)}`;
      }
      return days().format(Math.floor(total / 86_400));
    },
  };
  cache.set(language, formatters);
  return formatters;
}

/**
 * Wraps a name (a server, a subscription, a host's free text) in Unicode first-strong isolates,
 * so a Latin server name inside a Persian sentence (or the reverse) keeps its own direction and
 * does not scramble the punctuation around it. For text; in markup use <bdi>.
 */
export function isolate(text: string): string {
  return `\u2068${text}\u2069`;
}
