import i18next, { type i18n } from 'i18next';
import { initReactI18next } from 'react-i18next';
import type { Language } from '../../../shared/settings';
import { CATALOGUE } from './catalogue';

export const resources = {
  en: { translation: CATALOGUE.en },
  ru: { translation: CATALOGUE.ru },
  fa: { translation: CATALOGUE.fa },
  ar: { translation: CATALOGUE.ar },
  zh: { translation: CATALOGUE.zh },
} as const;

export { LANGUAGE_NAMES } from './languages';

/**
 * An i18next instance with all five languages at hand (never the global one, so tests stay
 * independent). The window itself reads the languages it does not show only when it shows them
 * (window.ts); every language is part of the build, since a censored network is no place to fetch them.
 */
export function createI18n(language: Language): i18n {
  const instance = i18next.createInstance();
  void instance.use(initReactI18next).init({
    resources,
    lng: language,
    fallbackLng: 'en',
    initAsync: false,
    interpolation: { escapeValue: false },
    returnNull: false,
  });
  return instance;
}
