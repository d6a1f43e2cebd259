/**
 * A server's download speed as one measure: the newest of the download made when the user asked
 * ("Measure speed"), the bulk speed test and the monitor's transfer test, each a download through
 * the server. Shown as
 * one figure with what was downloaded and when, so the details never hold two speeds that
 * disagree without saying why (a 64 KB test over a short path reads far faster than megabytes).
 */
import type { ServerStatus } from '../../../shared/domain/status';

export interface SpeedShown {
  bytesPerSecond: number;
  /** What was downloaded: on request, the bulk speed test, or the transfer test after a ping. */
  source: 'on-request' | 'speed-test' | 'transfer-test';
  /** Body bytes downloaded; null when not known (a speed kept from before its size was). */
  bytes: number | null;
  /** When (epoch ms); null when not known. */
  at: number | null;
}

export function speedShown(status: Pick<ServerStatus, 'throughputBps' | 'throughputTest' | 'transfer'> & Partial<Pick<ServerStatus, 'speedTest'>> | undefined): SpeedShown | null {
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
  const run = status.speedTest;
  const bulk: SpeedShown | null =
    run && run.bytesPerSecond !== null && run.bytesPerSecond > 0 ? { bytesPerSecond: run.bytesPerSecond, source: 'speed-test', bytes: run.bytes, at: run.at } : null;
  // The newest wins; a speed whose time is not known is older than any that has one.
  const known = [bulk, asked, tested].filter((s): s is SpeedShown => s !== null);
  return known.reduce<SpeedShown | null>((best, s) => (best === null || (s.at ?? -Infinity) > (best.at ?? -Infinity) ? s : best), null);
}
