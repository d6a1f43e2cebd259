import { describe, expect, it } from 'vitest';
import type { ProblemTopic } from '../../../shared/domain/problem';
import { LANGUAGES } from '../../../shared/settings';
import { formattersFor } from '../format/format';
import { createI18n } from '.';
import { problemText } from './problem';

/** What the engine can meet at start (engine.startupProblems()). */
const AT_START: ProblemTopic[] = [
  { kind: 'file-unreadable', file: 'settings.json', recovered: 'backup' },
  { kind: 'file-unreadable', file: 'subscriptions.json', recovered: 'empty' },
  { kind: 'no-core' },
  { kind: 'kill-switch-left', since: Date.UTC(2026, 11, 2, 1) },
  { kind: 'kill-switch-left', since: null },
];

const words = (language: (typeof LANGUAGES)[number], topic: ProblemTopic) => problemText(createI18n(language).t, formattersFor(language), topic);

describe('the words for a problem met at start', () => {
  it.each([
    ['en', '\u2068settings.json\u2069 could not be read. The app uses its last good copy; the damaged file was kept beside it.'],
    ['ru', 'Не удалось прочитать \u2068settings.json\u2069. Приложение использует последнюю исправную копию; повреждённый файл сохранён рядом.'],
    ['fa', '\u2068settings.json\u2069 خوانده نشد. برنامه از آخرین نسخهٔ سالم استفاده می‌کند؛ فایل خراب در کنار آن نگه داشته شد.'],
    ['ar', 'تعذّرت قراءة \u2068settings.json\u2069. يستخدم التطبيق آخر نسخة سليمة؛ وحُفظ الملف التالف بجانبها.'],
    ['zh', '无法读取 \u2068settings.json\u2069。应用正在使用最后一份完好的副本；损坏的文件已保留在旁边。'],
  ] as const)('%s: a settings file set aside is said in the language, its name isolated', (language, sentence) => {
    expect(words(language, AT_START[0]!)).toBe(sentence);
  });

  it.each(LANGUAGES.filter((language) => language !== 'en'))('%s has a sentence of its own for every problem met at start', (language) => {
    for (const topic of AT_START) {
      const text = words(language, topic);
      expect(text, topic.kind).not.toMatch(/^(problems|killSwitch)\./);
      expect(text, topic.kind).not.toContain('{{');
      expect(text, topic.kind).not.toBe(words('en', topic));
    }
  });
});

describe('per-app entries the capture cannot match here', () => {
  it.each(LANGUAGES)('%s: says so with the entries, each isolated, and the way out (uid:N)', (language) => {
    const text = words(language, { kind: 'per-app-unmatched', entries: ['/usr/bin/steam', 'discord'] });
    expect(text).toContain('\u2068/usr/bin/steam\u2069');
    expect(text).toContain('\u2068discord\u2069');
    expect(text).toContain('uid:N');
    expect(text).not.toContain('{{');
    if (language !== 'en') expect(text).not.toBe(words('en', { kind: 'per-app-unmatched', entries: ['/usr/bin/steam', 'discord'] }));
  });
});
