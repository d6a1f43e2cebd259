import { describe, expect, it } from 'vitest';
import { createI18n, resources } from '.';
import { LANGUAGES } from '../../../shared/settings';

type Tree = { [key: string]: string | Tree };
const PLURAL = /_(zero|one|two|few|many|other)$/;

function flatten(tree: Tree, prefix = ''): Map<string, string> {
  const out = new Map<string, string>();
  for (const [key, value] of Object.entries(tree)) {
    const path = prefix ? `${prefix}.${key}` : key;
    if (typeof value === 'string') out.set(path, value);
    else for (const [k, v] of flatten(value, path)) out.set(k, v);
  }
  return out;
}

/** Keys with the plural suffix removed, each with the set of suffixes present. */
function shape(flat: Map<string, string>): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  for (const key of flat.keys()) {
    const base = key.replace(PLURAL, '');
    const suffix = key.match(PLURAL)?.[1] ?? '';
    if (!out.has(base)) out.set(base, new Set());
    out.get(base)!.add(suffix);
  }
  return out;
}

const variables = (text: string) => new Set([...text.matchAll(/{{\s*([\w]+)[^}]*}}/g)].map((m) => m[1]));
const tags = (text: string) => [...text.matchAll(/<(\w+)>/g)].map((m) => m[1]).sort();

const english = flatten(resources.en.translation as unknown as Tree);
const englishShape = shape(english);

describe.each(LANGUAGES.filter((l) => l !== 'en'))('the %s translation', (language) => {
  const flat = flatten(resources[language].translation as unknown as Tree);
  const own = shape(flat);

  it('has every English key and no others', () => {
    expect([...own.keys()].sort()).toEqual([...englishShape.keys()].sort());
  });

  it('has every plural form its language needs', () => {
    const needed = new Intl.PluralRules(language).resolvedOptions().pluralCategories;
    for (const [key, suffixes] of own) {
      if (!englishShape.get(key)?.has('other')) continue;
      for (const category of needed) expect(suffixes.has(category), `${key}_${category}`).toBe(true);
    }
  });

  it('keeps the placeholders and markup of each English text', () => {
    for (const [key, text] of flat) {
      const base = key.replace(PLURAL, '');
      const reference = english.get(key) ?? english.get(`${base}_other`) ?? english.get(base);
      expect(reference, key).toBeDefined();
      const expected = variables(reference!);
      // a plural form may spell out its number ("خادم واحد") instead of showing {{count}}
      if (PLURAL.test(key)) expected.delete('count');
      for (const name of expected) expect(variables(text).has(name), `${key} lacks {{${name}}}`).toBe(true);
      expect(tags(text), key).toEqual(tags(reference!));
    }
  });
});

/**
 * Keys whose English value is right in every language: names (the app's, protocols', technical
 * terms) and examples written as the user types them. Anything else left as in English is a
 * string nobody translated.
 */
const SAME_IN_EVERY_LANGUAGE = new Set([
  'app.name', // a brand
  'routing.dns', // a protocol's name
  'details.ipv6', // a protocol's name
  'add.urlPlaceholder', // what an address starts with, typed as is
  'routing.ruleSets.formatName.srs', // a file format's name
  'routing.ruleSets.formatName.source-json', // a file format's name
]);

/** A value with nothing to translate: placeholders and punctuation only. */
const onlyPlaceholders = (text: string) => !/\p{L}/u.test(text.replace(/{{[^}]*}}/g, '').replace(/<\/?\w+>/g, ''));

describe.each(LANGUAGES.filter((l) => l !== 'en'))('nothing left in English in %s', (language) => {
  const flat = flatten(resources[language].translation as unknown as Tree);

  it('every English text has its own translation, except the names on the allow-list', () => {
    const untranslated = [...flat].filter(([key, text]) => english.get(key) === text && !SAME_IN_EVERY_LANGUAGE.has(key) && !onlyPlaceholders(text));
    expect(untranslated.map(([key, text]) => `${key}: ${text}`)).toEqual([]);
  });

  it('the allow-list names only keys that exist', () => {
    for (const key of SAME_IN_EVERY_LANGUAGE) expect(flat.has(key), key).toBe(true);
  });
});

describe('plural rules through i18next', () => {
  it.each([
    ['en', 1, '1 server'],
    ['en', 5, '5 servers'],
    ['ru', 1, '1 сервер'],
    ['ru', 3, '3 сервера'],
    ['ru', 5, '5 серверов'],
    ['ru', 21, '21 сервер'],
    ['ar', 2, 'خادمان'],
    ['ar', 3, '3 خوادم'],
    ['ar', 11, '11 خادمًا'],
    ['fa', 3, '۳ سرور'],
    ['zh', 3, '3 台服务器'],
  ] as const)('%s: %d', (language, count, text) => {
    expect(createI18n(language).t('subscription.servers', { count })).toBe(text);
  });
});

describe.each(LANGUAGES)('the %s trusted-checker hint', (language) => {
  it('quotes the verdict a server the checker cannot reach gets, in the same words', () => {
    const t = createI18n(language).t;
    expect(t('settings.trustedCheckerHint')).toContain(t('verdict.blocked'));
  });
});
