import { useTranslation } from 'react-i18next';
import { type Formatters, formattersFor } from '../format/format';

/** Intl formatters for the language in effect. */
export function useFormat(): Formatters {
  const { i18n } = useTranslation();
  return formattersFor(i18n.language);
}
