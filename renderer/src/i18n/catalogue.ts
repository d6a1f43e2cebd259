import type { Language } from '../../../shared/settings';
import { ar } from './locales/ar';
import { en } from './locales/en';
import { fa } from './locales/fa';
import { ru } from './locales/ru';
import { zh } from './locales/zh';

/**
 * The app's words in its five languages: the window's i18next resources and the tray's menu (the
 * Electron shell imports this file and nothing else of the UI, so the two never drift apart).
 */
export const CATALOGUE = { en, ru, fa, ar, zh } as const satisfies Record<Language, object>;
