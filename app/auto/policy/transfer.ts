/**
 * What the monitor's transfer test means to Auto. A server whose latest transfer test froze
 * answers pings but carries no traffic (DPI lets its connections start, then freezes them after
 * 16–20 KB): Auto counts it as not answering, in the queue (it sinks below every server that may
 * answer, with a group of its own) and in checks (its ping answer does not keep it, does not make
 * it a switch target, and does not count towards a return). It comes back by itself once a later
 * transfer test passes. A throttled server keeps its place; its answers are marked so the
 * timeline can say so.
 *
 * In a check started by the user's own traffic stalling, the current server's ping is followed
 * by a transfer test before the check concludes: a ping is exactly what a freezing server
 * passes, so without it a check would keep the user on the server whose traffic just froze.
 */
import type { CheckTrigger } from '../../../shared/domain/auto';
import type { ServerId } from '../../../shared/domain/server';
import type { TransferVerdict } from '../../../shared/domain/transfer';
import type { AutoWorld } from './world';

/** The marks a transfer verdict puts on a server's answers. */
export type TransferMark = Extract<TransferVerdict, 'freezes' | 'throttled'>;

export function transferMark(verdict: TransferVerdict | null | undefined): TransferMark | undefined {
  return verdict === 'freezes' || verdict === 'throttled' ? verdict : undefined;
}

/** The mark of the server's latest transfer test, if it has one. */
export function transferMarkOf(world: AutoWorld, id: ServerId): TransferMark | undefined {
  return transferMark(world.transferVerdict?.(id));
}

/** The latest transfer test froze: not answering, whatever its ping says. */
export function freezesNow(world: AutoWorld, id: ServerId): boolean {
  return transferMarkOf(world, id) === 'freezes';
}

const TRAFFIC_TRIGGERS: ReadonlySet<CheckTrigger> = new Set(['stall', 'no-receive-30s']);

/** Whether a check with this trigger follows the current server's ping with a transfer test. */
export function checksTransfer(trigger: CheckTrigger): boolean {
  return TRAFFIC_TRIGGERS.has(trigger);
}
