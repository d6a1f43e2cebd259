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
 *
 * A freeze is a trigger of its own (check-start.ts, trigger `freeze`): the current server's
 * transfer test saying `freezes` (or `throttled`, below the floor) starts a check at once. That
 * check is gated: a switch target needs a transfer result that is fresh (15 s) and passes the
 * gate, so its candidates' pings are followed by transfer tests unless a fresh result is in hand.
 * In every other check a server whose latest transfer passed ranks above one without a result.
 */
import type { CheckTrigger } from '../../../shared/domain/auto';
import type { Measurement } from '../../../shared/domain/measurement';
import type { ServerId } from '../../../shared/domain/server';
import type { TransferVerdict } from '../../../shared/domain/transfer';
import { AUTO_RULES } from './constants';
import type { AutoWorld, TransferSeen } from './world';

/** The marks a transfer verdict puts on a server's answers. */
export type TransferMark = Extract<TransferVerdict, 'freezes' | 'throttled'>;

export function transferMark(verdict: TransferVerdict | null | undefined): TransferMark | undefined {
  return verdict === 'freezes' || verdict === 'throttled' ? verdict : undefined;
}

/**
 * A `freezes` that let no byte through: the response never started although the connection
 * stayed open. DPI lets a connection's first kilobytes through before it freezes it, so this is a
 * server that was silent at the time (blackholed, or gone between its ping and the download),
 * not a freezing one. It is no freeze trigger for the current server (step.ts), and for anyone
 * it holds only until a ping answers after it.
 */
export function silentTransfer(result: Pick<TransferSeen, 'verdict' | 'bytes'>): boolean {
  return result.verdict === 'freezes' && result.bytes === 0;
}

/**
 * The mark of the server's latest transfer test, if it has one. `answeredAt`: when a ping of it
 * answered that the world may not hold yet (a probe result being taken in).
 *
 * Without the silent exception, a server whose transfer test ran while it was blackholed kept the
 * mark after it came back: every answer it gave counted as none, and Auto would neither switch
 * to it nor return to it until its next transfer test, an interval (5 min) later.
 */
export function transferMarkOf(world: AutoWorld, id: ServerId, answeredAt?: number): TransferMark | undefined {
  const seen = world.transferResult?.(id) ?? null;
  if (seen && silentTransfer(seen) && Math.max(answeredAt ?? Number.NEGATIVE_INFINITY, lastAnswerAt(world, id)) > seen.at) return undefined;
  return transferMark(seen?.verdict ?? world.transferVerdict?.(id));
}

function lastAnswerAt(world: AutoWorld, id: ServerId): number {
  return world.measurements(id).reduce((last, m) => (m.delayMs !== null && m.at > last ? m.at : last), Number.NEGATIVE_INFINITY);
}

/** The latest transfer test froze (and, when no byte came, no ping answered since): not answering, whatever its ping says. */
export function freezesNow(world: AutoWorld, id: ServerId): boolean {
  return transferMarkOf(world, id) === 'freezes';
}

const TRAFFIC_TRIGGERS: ReadonlySet<CheckTrigger> = new Set(['stall', 'no-receive-30s']);

/** Whether a check with this trigger follows the current server's ping with a transfer test. */
export function checksTransfer(trigger: CheckTrigger): boolean {
  return TRAFFIC_TRIGGERS.has(trigger);
}

/**
 * The verdicts a freeze check asks a switch target for (`gate`): after a freeze anything that does
 * not freeze; after a throttled current server, a transfer at full speed (another throttled server
 * is no better).
 */
export function passesGate(verdict: TransferVerdict | null | undefined, gate: TransferMark): boolean {
  if (verdict === 'ok') return true;
  return gate === 'freezes' && verdict === 'throttled';
}

/**
 * The server's latest transfer passed (`ok` or `throttled`, cached or of this run) and its latest
 * ping answered: in the queue it goes before one with no transfer result yet. A pass followed by
 * silence says nothing about today's traffic, so it earns nothing.
 */
export function transferPassed(world: AutoWorld, id: ServerId): boolean {
  const verdict = world.transferVerdict?.(id);
  if (verdict !== 'ok' && verdict !== 'throttled') return false;
  const latest = world.measurements(id).reduce<Measurement | null>((a, m) => (!a || m.at >= a.at ? m : a), null);
  return latest === null || latest.delayMs !== null;
}

/** The server's transfer result if it is fresh: of this run and younger than 15 s (AUTO_RULES.transferFreshMs). */
export function freshTransfer(world: AutoWorld, id: ServerId, now: number): TransferSeen | null {
  const seen = world.transferResult?.(id) ?? null;
  if (!seen || seen.fromCache || now - seen.at > AUTO_RULES.transferFreshMs || seen.at > now) return null;
  return seen;
}
