import { describe, expect, it } from 'vitest';
import { formattersFor } from './format';

describe('formatters', () => {
  it('reads pings as "63 ms" in English and in each language’s own digits and units', () => {
    expect(formattersFor('en').ms(63)).toBe('63 ms');
    expect(formattersFor('en').ms(62.6)).toBe('63 ms');
    expect(formattersFor('ru').ms(63)).toBe('63 мс');
    expect(formattersFor('fa').ms(63)).toMatch(/^۶۳/);
  });

  it('scales sizes and rates by 1000 with one decimal below 100', () => {
    const en = formattersFor('en');
    expect(en.bytes(512)).toBe('0.5 kB');
    expect(en.bytes(33.5e9)).toBe('33.5 GB');
    expect(en.bytes(100e9)).toBe('100 GB');
    expect(en.rate(1_234_567)).toBe('1.2 MB/s');
    expect(en.rate(0)).toBe('0 kB/s');
  });

  it('says durations the short way', () => {
    const en = formattersFor('en');
    expect(en.duration(15_000)).toBe('15 sec');
    expect(en.duration(90_000)).toBe('1 min 30 sec');
    expect(en.duration(30 * 60_000)).toBe('30 min');
    expect(en.duration(2 * 3_600_000)).toBe('2 hr');
    expect(en.duration(3 * 86_400_000)).toBe('3 days');
  });

  it('says relative times', () => {
    const en = formattersFor('en');
    expect(en.relative(0, 3 * 60_000)).toBe('3 minutes ago');
    expect(en.relative(2 * 86_400_000, 0)).toBe('in 2 days');
    expect(en.relative(1000, 1000)).toBe('now');
  });

  it.each([
    ['en', 'Jun 17, 2026'],
    ['ru', '17 июн. 2026 г.'],
    ['fa', '۲۷ خرداد ۱۴۰۵'],
    ['ar', '17 يونيو 2026'],
    ['zh', '2026年6月17日'],
  ])('a data file’s day in %s: its calendar and digits (Solar Hijri for Persian), the month named in Arabic', (language, text) => {
    expect(formattersFor(language).day('2026-06-17')).toBe(text);
    expect(formattersFor(language).day('not a day')).toBe('not a day');
  });
});

