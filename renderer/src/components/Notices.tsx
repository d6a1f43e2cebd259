import { useEffect } from 'react';
import { useTranslation } from 'react-i18next';
import { useAppStore } from '../store/context';
import type { Notice } from '../store/ui';
import { EngineDetails } from './EngineDetails';

const INFO_VISIBLE_MS = 5000;

function NoticeItem({ notice }: { notice: Notice }) {
  const { t } = useTranslation();
  const dismiss = useAppStore((s) => s.dismissNotice);
  useEffect(() => {
    if (notice.tone !== 'info') return;
    const timer = setTimeout(() => dismiss(notice.id), INFO_VISIBLE_MS);
    return () => clearTimeout(timer);
  }, [notice, dismiss]);
  // A refusal the engine named is said in the user's language, its English words one click away.
  const body = notice.key ? t(notice.key) : notice.code ? t(`refusal.${notice.code}`) : notice.text ?? '';
  return (
    <li className={`notice notice-${notice.tone}`}>
      <div>
        {notice.tone === 'error' && <strong>{t(`notice.${notice.what}`)}</strong>}
        {body && <span> {body}</span>}
        {notice.code && notice.text && <EngineDetails text={notice.text} className="notice-details" />}
      </div>
      <button type="button" className="icon-button small" aria-label={t('common.dismiss')} onClick={() => dismiss(notice.id)}>
        ×
      </button>
    </li>
  );
}

/** Errors from the host and short confirmations; errors stay until dismissed. */
export function Notices() {
  const notices = useAppStore((s) => s.notices);
  const errors = notices.filter((n) => n.tone === 'error');
  const infos = notices.filter((n) => n.tone === 'info');
  return (
    <div className="notices">
      <ul role="alert" aria-live="assertive">
        {errors.map((notice) => (
          <NoticeItem key={notice.id} notice={notice} />
        ))}
      </ul>
      <ul role="status" aria-live="polite">
        {infos.map((notice) => (
          <NoticeItem key={notice.id} notice={notice} />
        ))}
      </ul>
    </div>
  );
}

/** Said while the link to the host is down (the browser UI of the headless host). */
export function LinkBanner() {
  const { t } = useTranslation();
  const link = useAppStore((s) => s.link);
  if (link === 'open' || link === 'connecting') return null;
  return (
    <div className="link-banner" role="status">
      {t(link === 'closed' ? 'link.closed' : 'link.reconnecting')}
    </div>
  );
}
