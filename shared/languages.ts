/** The languages the app speaks (settings.ts validates the choice; the window reads this file without the schemas). */
export const LANGUAGES = ['en', 'ru', 'fa', 'ar', 'zh'] as const;
export type Language = (typeof LANGUAGES)[number];
