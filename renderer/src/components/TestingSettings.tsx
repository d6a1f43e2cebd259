/**
 * The Testing page of Settings: what the monitor's tests used through the servers in the last
 * hour and the last day, by kind, and the optional daily cap (at the cap only the current server
 * and Auto's next candidates get delay probes). The figures are asked when the page is shown and
 * every 10 s while it stays open.
 */
import { useEffect } from 'react';
import { useTranslation } from 'react-i18next';
import { type BytesByKind, TEST_KINDS, totalBytes } from '../../../shared/domain/test-traffic';
import { useFormat } from '../hooks/useFormat';
import { useAppStore } from '../store/context';

const REFRESH_MS = 10_000;

export interface TestingDraft {
  /** The daily cap in MB as typed; empty: no cap. */
  testBudgetMb: string;
}

export function testingDraftOf(capBytesPerDay: number): TestingDraft {
  return { testBudgetMb: capBytesPerDay > 0 ? String(Math.round(capBytesPerDay / 1e4) / 100) : '' };
}

/** The cap in bytes, 0 for none, or null when the text is not a number of MB. */
export function capBytesOf(draft: TestingDraft): number | null {
  const text = draft.testBudgetMb.trim().replace(',', '.');
  if (text === '') return 0;
  const mb = Number(text);
  return Number.isFinite(mb) && mb >= 0 ? Math.round(mb * 1e6) : null;
}

export function TestingSettings({ draft, error, onChange }: { draft: TestingDraft; error?: string; onChange(change: TestingDraft): void }) {
  const { t } = useTranslation();
  const format = useFormat();
  const traffic = useAppStore((s) => s.testTraffic);
  const load = useAppStore((s) => s.loadTestTraffic);
  useEffect(() => {
    void load();
    const timer = setInterval(() => void load(), REFRESH_MS);
    return () => clearInterval(timer);
  }, [load]);
  const usage = traffic.state === 'ready' ? traffic.usage : null;
  const cell = (byKind: BytesByKind, kind: (typeof TEST_KINDS)[number]) => format.bytes(byKind[kind].up + byKind[kind].down);
  return (
    <div className="testing-settings">
      <p className="hint">{t('testing.explain')}</p>
      {traffic.state === 'failed' && <p className="field-error">{traffic.error}</p>}
      {usage && (
        <table className="testing-usage">
          <caption>{t('testing.usageTitle')}</caption>
          <thead>
            <tr>
              <th scope="col">{t('testing.kind')}</th>
              <th scope="col">{t('testing.lastHour')}</th>
              <th scope="col">{t('testing.lastDay')}</th>
            </tr>
          </thead>
          <tbody>
            {TEST_KINDS.map((kind) => (
              <tr key={kind}>
                <th scope="row">{t(`testing.kinds.${kind}`)}</th>
                <td>{cell(usage.lastHour, kind)}</td>
                <td>{cell(usage.lastDay, kind)}</td>
              </tr>
            ))}
            <tr className="testing-total">
              <th scope="row">{t('testing.total')}</th>
              <td>{format.bytes(totalBytes(usage.lastHour))}</td>
              <td>{format.bytes(totalBytes(usage.lastDay))}</td>
            </tr>
          </tbody>
        </table>
      )}
      {usage?.capped && (
        <p className="testing-capped" role="status">
          {t('testing.capped')}
        </p>
      )}
      <label className="field">
        <span>{t('testing.cap')}</span>
        <input
          inputMode="decimal"
          value={draft.testBudgetMb}
          aria-invalid={error ? true : undefined}
          aria-describedby={error ? 'err-monitor.testBudgetBytesPerDay' : undefined}
          onChange={(e) => onChange({ testBudgetMb: e.target.value })}
        />
        <span className="hint">{t('testing.capHint')}</span>
        {error && (
          <span className="field-error" id="err-monitor.testBudgetBytesPerDay">
            {error}
          </span>
        )}
      </label>
    </div>
  );
}
