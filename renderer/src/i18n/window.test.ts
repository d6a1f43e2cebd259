import { describe, expect, it } from 'vitest';
import type { Language } from '../../../shared/settings';
import { CATALOGUE } from './catalogue';
import { createWindowI18n, loadCatalogue } from './window';

/** The real catalogues, with a record of which were read and a way to hold one back. */
function catalogues(options: { fail?: Language } = {}) {
  const read: Language[] = [];
  const load = async (language: Language) => {
    read.push(language);
    if (language === options.fail) throw new Error(`the ${language} chunk did not load`);
    return loadCatalogue(language);
  };
  return { read, load };
}

describe("the window's languages", () => {
  it('reads each catalogue from its own chunk, word for word the one the tray and the tests use', async () => {
    for (const language of Object.keys(CATALOGUE) as Language[]) expect(await loadCatalogue(language)).toBe(CATALOGUE[language]);
  });

  it('opens in English without reading any other language', async () => {
    const { read, load } = catalogues();
    const i18n = await createWindowI18n('en', load);
    expect(i18n.t('app.loading')).toBe(CATALOGUE.en.app.loading);
    expect(read).toEqual([]);
  });

  it("opens in the system's language with its words already in, and only those", async () => {
    const { read, load } = catalogues();
    const i18n = await createWindowI18n('ru', load);
    expect(i18n.language).toBe('ru');
    expect(i18n.t('app.loading')).toBe(CATALOGUE.ru.app.loading);
    expect(read).toEqual(['ru']);
  });

  it('reads a language chosen later before switching to it, and falls back to English if it cannot be read', async () => {
    const { read, load } = catalogues({ fail: 'zh' });
    const i18n = await createWindowI18n('en', load);
    const switching = i18n.changeLanguage('ar');
    expect(i18n.t('app.loading')).toBe(CATALOGUE.en.app.loading); // nothing half-switched meanwhile
    await switching;
    expect(i18n.language).toBe('ar');
    expect(i18n.t('app.loading')).toBe(CATALOGUE.ar.app.loading);
    await i18n.changeLanguage('zh').catch(() => undefined);
    // A chunk that cannot be read leaves English words, never keys.
    expect(i18n.t('app.loading')).toBe(CATALOGUE.en.app.loading);
    expect(read).toEqual(['ar', 'zh']);
  });
});
