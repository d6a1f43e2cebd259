/**
 * A server's download speed as one measure: the newer of the download made when the user asked
 * ("Measure speed") and the monitor's transfer test, each a download through the server. Shown as
 * one figure with what was downloaded and when, so the details never hold two speeds that
 * disagree without saying why (a 64 KB test over a short path reads far faster than megabytes).
 */
import type { ServerStatus } from '../../../shared/domain/status';

export interface SpeedShown {
  bytesPerSecond: number;
  /** What was downloaded: on request, or the transfer test after a ping. */
  source: 'on-request' | 'transfer-test';
  /** Body bytes downloaded; null when not known (a speed kept from before its size was). */
  bytes: number | null;
  /** When (epoch ms); null when not known. */
  at: number | null;
}

export function speedShown(status: Pick<ServerStatus, 'throughputBps' | 'throughputTest' | 'transfer'> | undefined): SpeedShown | null {
  if (!status) return null;
  const asked: SpeedShown | null =
    status.throughputBps !== null && status.throughputBps > 0
      ? { bytesPerSecond: status.throughputBps, source: 'on-request', bytes: status.throughputTest?.bytes ?? null, at: status.throughputTest?.at ?? null }
      : null;
  const test = status.transfer;
  const tested: SpeedShown | null =
    test && (test.verdict === 'ok' || test.verdict === 'throttled') && test.bytesPerSecond !== null && test.bytesPerSecond > 0
      ? { bytesPerSecond: test.bytesPerSecond, source: 'transfer-test', bytes: test.bytes, at: test.at }
      : null;
  if (!asked || !tested) return asked ?? tested;
  // A speed whose time is not known is older than any that has one.
  return (asked.at ?? -Infinity) >= tested.at! ? asked : tested;
}
