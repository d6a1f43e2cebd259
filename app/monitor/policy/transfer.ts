/**
 * The transfer test's rules (pure): when a server is due for one, how long it may take, and what
 * a download's course means.
 *
 * - Due after a successful delay test when the server has no transfer result of this run, or its
 *   result is older than `interval` (the cycle that retests its delay retests its transfer):
 *   one extra request per server per interval.
 * - The body must come within a deadline: the URL test's timeout for the response to start, plus
 *   the time the whole body takes at the floor speed. A download still flowing at the deadline is
 *   below the floor by construction.
 * - `freezes`: the connection stayed open and nothing came for 2 s — before the headers too, once
 *   the URL test's timeout has passed without them (the delay test had just answered).
 * - `throttled`: below 32 KB/s over the body; `ok` otherwise.
 */
import { TRANSFER_STALL_MS, type TransferVerdict } from '../../../shared/domain/transfer';
import type { TransferCourse } from '../../tunnel/probe-contract';
import { isDue } from './timing';

export type { TransferCourse };

export { TRANSFER_STALL_MS };
/** Below this body speed a server is throttled (a page of 1 MB would take over 30 s). */
export const TRANSFER_FLOOR_BPS = 32 * 1024;

export interface TransferJudgement {
  verdict: TransferVerdict;
  bytes: number;
  bytesPerSecond: number | null;
  detail: string;
}

/** The deadline of one transfer test of `bytes`. */
export function transferDeadlineMs(bytes: number, urlTestTimeoutMs: number): number {
  return urlTestTimeoutMs + Math.ceil((bytes * 1000) / TRANSFER_FLOOR_BPS);
}

export function judgeTransfer(course: TransferCourse, expectedBytes: number, floorBps = TRANSFER_FLOOR_BPS): TransferJudgement {
  if (course.kind === 'error') return { verdict: 'failed', bytes: 0, bytesPerSecond: null, detail: course.error.message };
  if (course.kind === 'silent') {
    return { verdict: 'freezes', bytes: 0, bytesPerSecond: null, detail: 'the response never started although the connection stayed open' };
  }
  if (course.status !== 200) return { verdict: 'failed', bytes: course.bytes, bytesPerSecond: null, detail: `HTTP ${course.status} instead of 200` };
  const speed = course.bytes > 0 ? Math.round((course.bytes * 1000) / Math.max(1, course.bodyMs)) : null;
  if (course.kind === 'stalled') {
    return { verdict: 'freezes', bytes: course.bytes, bytesPerSecond: speed, detail: `${course.bytes} of ${expectedBytes} bytes, then nothing for ${TRANSFER_STALL_MS / 1000} s` };
  }
  if (course.kind === 'deadline') {
    return { verdict: 'throttled', bytes: course.bytes, bytesPerSecond: speed, detail: `${course.bytes} of ${expectedBytes} bytes by the deadline` };
  }
  const slow = speed !== null && speed < floorBps;
  return { verdict: slow ? 'throttled' : 'ok', bytes: course.bytes, bytesPerSecond: speed, detail: `${course.bytes} bytes in ${Math.round(course.bodyMs)} ms` };
}

export interface LastTransfer {
  at: number;
  fromCache: boolean;
}

/**
 * Whether a server whose delay test just answered is due for a transfer test: none in this run
 * yet, or the last one is older than `interval` (with the same slack a cycle gives delay tests,
 * so a server tested late in one cycle is still due in the next).
 */
export function transferDue(last: LastTransfer | null, now: number, intervalMs: number, slackMs = 0): boolean {
  if (!last || last.fromCache) return true;
  return isDue(last.at, now, intervalMs, slackMs);
}
