import type { Language } from '../../../shared/settings';

/** Each language named in itself, for the language menu. */
export const LANGUAGE_NAMES: Record<Language, string> = {
  en: 'English',
  ru: 'Русский',
  fa: 'فارسی',
  ar: 'العربية',
  zh: '中文',
};
