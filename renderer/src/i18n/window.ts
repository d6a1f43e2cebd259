/**
 * The window's i18next instance: English (the fallback) is in the first bundle, every other
 * language in a file of its own, read from the app's own build when it is first shown (never from
 * the network). The four catalogues a window does not show were a third of the code it parsed
 * before its first frame.
 */
import i18next, { type BackendModule, type i18n, type ResourceKey } from 'i18next';
import { initReactI18next } from 'react-i18next';
import type { Language } from '../../../shared/settings';
import { en } from './locales/en';

/** A language's words, from its own chunk of the build. */
export function loadCatalogue(language: Language): Promise<ResourceKey> {
  switch (language) {
    case 'en':
      return Promise.resolve(en);
    case 'ru':
      return import('./locales/ru').then((module) => module.ru);
    case 'fa':
      return import('./locales/fa').then((module) => module.fa);
    case 'ar':
      return import('./locales/ar').then((module) => module.ar);
    case 'zh':
      return import('./locales/zh').then((module) => module.zh);
  }
}

/** i18next reads a language it has not got yet through this, when the settings switch to it. */
function catalogueBackend(load: (language: Language) => Promise<ResourceKey>): BackendModule {
  return {
    type: 'backend',
    init: () => undefined,
    read: (language, _namespace, callback) => {
      load(language as Language).then(
        (catalogue) => callback(null, catalogue),
        (error: unknown) => callback(error instanceof Error ? error : new Error(String(error)), false),
      );
    },
  };
}

/**
 * Resolves once the first language's words are in, so the first frame is drawn in it; a language
 * chosen later is read before i18next switches to it (the window keeps the one it has meanwhile).
 */
export async function createWindowI18n(language: Language, load: (language: Language) => Promise<ResourceKey> = loadCatalogue): Promise<i18n> {
  const resources: Record<string, { translation: ResourceKey }> = { en: { translation: en } };
  if (language !== 'en') resources[language] = { translation: await load(language) };
  const instance = i18next.createInstance();
  await instance
    .use(catalogueBackend(load))
    .use(initReactI18next)
    .init({
      resources,
      partialBundledLanguages: true,
      lng: language,
      fallbackLng: 'en',
      // The first language is at hand: no timer before the first frame.
      initAsync: false,
      interpolation: { escapeValue: false },
      returnNull: false,
      react: { useSuspense: false },
    });
  return instance;
}
