import { useTranslation } from 'react-i18next';

/**
 * The engine's own sentence behind a translated one (the path, the host, the system's reason), in
 * English as in the log, one click away. Isolated so a right-to-left page keeps its order.
 */
export function EngineDetails({ text, className }: { text: string; className: string }) {
  const { t } = useTranslation();
  return (
    <details className={className}>
      <summary>{t('common.engineDetails')}</summary>
      <p>
        <bdi>{text}</bdi>
      </p>
    </details>
  );
}
