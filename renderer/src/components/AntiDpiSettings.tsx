/**
 * The Anti-censorship page of Settings: TLS ClientHello fragment and UDP noise for every server
 * (a server may override them in its details), and whether the core in use can do them.
 */
import { useTranslation } from 'react-i18next';
import type { AntiDpiErrors, AntiDpiValues } from './anti-dpi-form';
import { AntiDpiAvailability, AntiDpiFields } from './AntiDpiFields';

export function AntiDpiSettings({ values, errors, overrides, onChange }: { values: AntiDpiValues; errors: AntiDpiErrors; overrides: number; onChange(values: AntiDpiValues): void }) {
  const { t } = useTranslation();
  return (
    <div className="anti-dpi-settings">
      <p className="hint">{t('antiDpi.intro')}</p>
      <AntiDpiAvailability />
      <AntiDpiFields idPrefix="anti-dpi" values={values} errors={errors} onChange={onChange} />
      <p className="hint">{overrides > 0 ? t('antiDpi.overrides', { count: overrides }) : t('antiDpi.noOverrides')}</p>
    </div>
  );
}
