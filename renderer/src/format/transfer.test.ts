import { describe, expect, it } from 'vitest';
import type { TransferTest } from '../../../shared/domain/transfer';
import { createI18n } from '../i18n';
import { formattersFor } from './format';
import { transferRowNote, transferWords } from './transfer';

const AT = Date.UTC(2026, 0, 1, 12, 4, 10);
const test = (patch: Partial<TransferTest>): TransferTest => ({
  verdict: 'ok',
  at: AT,
  bytes: 65_536,
  expectedBytes: 65_536,
  bytesPerSecond: 1_500_000,
  fragment: false,
  detail: '65536 bytes in 44 ms',
  fromCache: false,
  ...patch,
});

function words(t: TransferTest, language = 'en') {
  const i18n = createI18n(language as 'en');
  const format = formattersFor(language);
  return { row: transferRowNote(i18n.t, format, t), all: transferWords(i18n.t, format, t), time: format.time(AT) };
}

describe('the transfer test in words', () => {
  it.each([
    [test({ verdict: 'freezes', bytes: 16_000, bytesPerSecond: 400_000 }), 'answers pings but stalls after 16 kB', 'bad'],
    [test({ verdict: 'throttled', bytesPerSecond: 12_000 }), 'slow: 12 kB/s', 'warn'],
  ] as const)('the row says what should change the choice: %#', (t, text, tone) => {
    const { row, time } = words(t);
    expect(row).toMatchObject({ text, tone });
    expect(row?.withTime).toBe(`${text} (tested ${time})`);
  });

  it('says nothing on the row of a transfer that passed or could not be made, or of none', () => {
    expect(words(test({ verdict: 'ok' })).row).toBeNull();
    expect(words(test({ verdict: 'failed', bytesPerSecond: null })).row).toBeNull();
    const i18n = createI18n('en');
    expect(transferRowNote(i18n.t, formattersFor('en'), null)).toBeNull();
  });

  it('names the speed of a transfer that passed, and notes the TLS fragment', () => {
    const { all, time } = words(test({ fragment: true }));
    expect(all.withTime).toBe(`65.5 kB at 1.5 MB/s (tested ${time} · TLS ClientHello fragment on)`);
  });

  it.each(['ru', 'fa', 'ar', 'zh'])('is said in %s', (language) => {
    const { row } = words(test({ verdict: 'freezes', bytes: 16_000 }), language);
    expect(row?.text).not.toContain('transfer.');
    expect(row?.text).not.toBe(words(test({ verdict: 'freezes', bytes: 16_000 })).row?.text);
  });
});
