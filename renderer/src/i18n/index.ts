import i18next, { type i18n } from 'i18next';
import { initReactI18next } from 'react-i18next';
import type { Language } from '../../../shared/settings';
import { ar } from './locales/ar';
import { en } from './locales/en';
import { fa } from './locales/fa';
import { ru } from './locales/ru';
import { zh } from './locales/zh';

export const resources = {
  en: { translation: en },
  ru: { translation: ru },
  fa: { translation: fa },
  ar: { translation: ar },
  zh: { translation: zh },
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
