/**
 * The monitor's transfer test in the user's words: "answers pings but stalls after 16 KB",
 * "slow: 12 KB/s", with the time of the test. A ping fits under the 16–20 KB after which some
 * networks freeze a connection, so a row with a good ping can still be a server that hangs pages;
 * this is the line that says so.
 */
import type { TFunction } from 'i18next';
import { TRANSFER_STALL_MS, type TransferTest } from '../../../shared/domain/transfer';
import type { Formatters } from './format';

export interface TransferWords {
  /** The verdict in a few words. */
  text: string;
  /** `text` with when the test ran (and that TLS fragment was on). */
  withTime: string;
  tone: 'bad' | 'warn' | 'ok' | 'muted';
}

export function transferWords(t: TFunction, format: Formatters, test: TransferTest): TransferWords {
  const speed = test.bytesPerSecond === null ? null : format.rate(test.bytesPerSecond);
  let text: string;
  let tone: TransferWords['tone'];
  switch (test.verdict) {
    case 'freezes':
      text = t('transfer.freezes', { size: format.bytes(test.bytes) });
      tone = 'bad';
      break;
    case 'throttled':
      text = t('transfer.slow', { speed: speed ?? format.rate(0) });
      tone = 'warn';
      break;
    case 'ok':
      text = t('transfer.ok', { size: format.bytes(test.bytes), speed: speed ?? format.rate(0) });
      tone = 'ok';
      break;
    case 'failed':
      text = t('transfer.failed');
      tone = 'muted';
      break;
  }
  const time = t('transfer.testedAt', { time: format.time(test.at) });
  const fragment = test.fragment ? ` · ${t('transfer.withFragment')}` : '';
  return { text, withTime: `${text} (${time}${fragment})`, tone };
}

/** What the row says of a transfer test: only what should change the user's choice. */
export function transferRowNote(t: TFunction, format: Formatters, test: TransferTest | null): TransferWords | null {
  if (!test || (test.verdict !== 'freezes' && test.verdict !== 'throttled')) return null;
  return transferWords(t, format, test);
}

/**
 * What a transfer test saw, in the user's words: the bytes and time of one that came through (or
 * was slow), the bytes before the silence of one that froze. Null for a failure, whose reason is
 * the engine's (the core's or the network's own words).
 */
export function transferSeen(t: TFunction, format: Formatters, test: TransferTest): string | null {
  if ((test.verdict === 'ok' || test.verdict === 'throttled') && test.bytesPerSecond !== null && test.bytesPerSecond > 0) {
    return t('transfer.measured', { size: format.bytes(test.bytes), time: format.ms((test.bytes / test.bytesPerSecond) * 1000) });
  }
  if (test.verdict === 'freezes') {
    if (test.bytes === 0) return t('transfer.silentDetail');
    return t('transfer.stalledDetail', { got: format.bytes(test.bytes), size: format.bytes(test.expectedBytes), seconds: format.number(TRANSFER_STALL_MS / 1000) });
  }
  return null;
}
