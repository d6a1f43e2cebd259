import { describe, expect, it } from 'vitest';
import { judgeTransfer, TRANSFER_FLOOR_BPS, type TransferCourse, transferDeadlineMs, transferDue } from './transfer';

const KB = 1024;
const body = (kind: 'complete' | 'stalled' | 'deadline', bytes: number, bodyMs: number, status = 200): TransferCourse => ({ kind, status, bytes, headersMs: 120, bodyMs });

describe('judgeTransfer: what a download through a server says', () => {
  it.each([
    // course, verdict, bytes, speed (B/s)
    ['the whole body fast', body('complete', 64 * KB, 50), 'ok', 64 * KB, 1_310_720],
    ['the whole body exactly at the floor', body('complete', 64 * KB, 2000), 'ok', 64 * KB, TRANSFER_FLOOR_BPS],
    ['the whole body just below the floor', body('complete', 64 * KB, 2100), 'throttled', 64 * KB, 31_208],
    ['a trickle still flowing at the deadline', body('deadline', 40 * KB, 3400), 'throttled', 40 * KB, 12_047],
    ['16 KB, then 2 s of nothing', body('stalled', 16 * KB, 40), 'freezes', 16 * KB, 409_600],
    ['nothing after the headers', body('stalled', 0, 0), 'freezes', 0, null],
    ['no headers within the URL test timeout', { kind: 'silent' } as const, 'freezes', 0, null],
    ['an HTTP error', body('complete', 200, 5, 503), 'failed', 200, null],
    ['a connection error', { kind: 'error', error: { kind: 'reset', message: 'the server reset the connection' } } as const, 'failed', 0, null],
  ] as const)('%s: %s', (_name, course, verdict, bytes, speed) => {
    const judged = judgeTransfer(course, 64 * KB);
    expect(judged).toMatchObject({ verdict, bytes, bytesPerSecond: speed });
    expect(judged.detail.length).toBeGreaterThan(0);
  });

  it('says how many bytes came before the silence', () => {
    expect(judgeTransfer(body('stalled', 15_800, 30), 65_536).detail).toBe('15800 of 65536 bytes, then nothing for 2 s');
  });
});

describe('transfer test timing', () => {
  it('gives the response the URL test timeout, then the body its time at the floor speed', () => {
    expect(transferDeadlineMs(64 * KB, 5000)).toBe(7000);
    expect(transferDeadlineMs(32 * KB, 3000)).toBe(4000);
  });

  it.each([
    // last transfer, now, interval, slack, due
    ['never tested', null, 1000, 60_000, 0, true],
    ['tested last run only (from cache)', { at: 900, fromCache: true }, 1000, 60_000, 0, true],
    ['tested in this run, fresh', { at: 0, fromCache: false }, 30_000, 60_000, 0, false],
    ['tested in this run, one interval ago', { at: 0, fromCache: false }, 60_000, 60_000, 0, true],
    ['a little under an interval ago, within the slack', { at: 0, fromCache: false }, 50_000, 60_000, 30_000, true],
    ['the slack never exceeds half the interval', { at: 0, fromCache: false }, 29_000, 60_000, 60_000, false],
  ] as const)('%s: due %s', (_name, last, now, interval, slack, due) => {
    expect(transferDue(last, now, interval, slack)).toBe(due);
  });
});
