import { useTranslation } from 'react-i18next';
import type { TransferTest } from '../../../shared/domain/transfer';
import { transferRowNote, transferSeen, transferWords } from '../format/transfer';
import { useFormat } from '../hooks/useFormat';

/** The transfer test's line in the details summary: shown only when it should change the user's choice. */
export function TransferWarning({ test }: { test: TransferTest | null }) {
  const { t } = useTranslation();
  const format = useFormat();
  const note = transferRowNote(t, format, test);
  if (!note) return null;
  return (
    <span className={note.tone === 'bad' ? 'bad' : 'warn'} data-transfer={test?.verdict} title={test?.detail}>
      {note.withTime}
    </span>
  );
}

/** The transfer test among the statistics: its verdict, speed and time, and what it is for. */
export function TransferField({ test }: { test: TransferTest | null }) {
  const { t } = useTranslation();
  const format = useFormat();
  const words = test ? transferWords(t, format, test) : null;
  return (
    <>
      <dt title={t('transfer.hint')}>{t('transfer.label')}</dt>
      <dd data-transfer={test?.verdict ?? 'none'}>
        {/* A passing test's speed is the details' one download speed: here it says only that the bytes came through. */}
        {test && words ? (
          <span className={`transfer transfer-${words.tone}`}>{test.verdict === 'ok' ? t('transfer.passed', { time: format.time(test.at) }) : words.withTime}</span>
        ) : (
          t('transfer.notTested')
        )}
        {test?.fromCache && <span className="badge badge-cache"> {t('row.fromCache')}</span>}
        {test && (
          <>
            <br />
            <small className="muted">
              {/* What was seen, in the user's words; a failure's reason is the engine's (the core's or the network's own). */}
              {transferSeen(t, format, test) ?? <bdi>{test.detail}</bdi>}
            </small>
          </>
        )}
      </dd>
    </>
  );
}
