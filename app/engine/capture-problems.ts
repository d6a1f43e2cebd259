import type { CaptureStatus } from '../system-wide/capture';
import type { ProblemBoard } from './problems';

/**
 * What the capture's status puts on the problem board: a capture that should be in force and is
 * not (an error), and per-app entries the capture in force cannot tell apart on this machine (a
 * warning: those programs go as every other program does — said, never a silent no-op; it leaves
 * the board once a capture matches the whole list).
 */
export function followCaptureProblems(status: CaptureStatus, board: Pick<ProblemBoard, 'raise' | 'withdraw'>): void {
  if (status.error) board.raise({ topic: { kind: 'system-wide' }, detail: status.error }, 'error');
  if (!status.active) return;
  const unmatched = status.perAppUnmatched ?? [];
  if (unmatched.length > 0) board.raise({ topic: { kind: 'per-app-unmatched', entries: unmatched.map((u) => u.entry) }, detail: unmatched.map((u) => `${u.entry}: ${u.reason}`).join('\n') });
  else board.withdraw({ kind: 'per-app-unmatched', entries: [] });
}
