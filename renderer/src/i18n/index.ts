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

/** Each language named in itself, for the language menu. */
export const LANGUAGE_NAMES: Record<Language, string> = {
  en: 'English',
  ru: 'Русский',
  fa: 'فارسی',
  ar: 'العربية',
  zh: '中文',
};

/**
 * One i18next instance per window (never the global one, so tests stay independent). All five
 * languages are bundled: they are small, and a censored network is no place to fetch them.
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
