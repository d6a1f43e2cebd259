import { useCallback, useContext, useSyncExternalStore } from 'react';
import { getI18n, I18nContext } from 'react-i18next';
import { type Formatters, formattersFor } from '../format/format';

/**
 * The language in effect, followed as i18next changes it. Only the language: react-i18next's
 * useTranslation does far more per call (options, namespaces, a bound `t`), and a row of the list
 * that formats a figure would pay for it twice, 18 rows in the first frame of 5,000 servers.
 */
function useLanguage(): string {
  const i18n = useContext(I18nContext)?.i18n ?? getI18n();
  const subscribe = useCallback(
    (changed: () => void) => {
      i18n.on('languageChanged', changed);
      return () => i18n.off('languageChanged', changed);
    },
    [i18n],
  );
  return useSyncExternalStore(subscribe, () => i18n.language);
}

/** Intl formatters for the language in effect. */
export function useFormat(): Formatters {
  return formattersFor(useLanguage());
}
