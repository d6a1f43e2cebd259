/**
 * What the log and the listeners are told (pure). Listeners hear every change of verdict, reason
 * or vantage points at once. The log gets a `reachability:` line when the verdict or its vantage
 * points differ from the last line, once the votes of a round in flight are all in (not one line
 * per arriving vote); `ok`, and `unknown` for lack of data or while the network is lost, are not
 * worth a line per server. The network-lost state is logged once when it begins and once when it
 * ends, not per server.
 */
import type { ServerId } from '../../../shared/domain/server';
import type { Reachability, Verdict } from '../../../shared/domain/status';
import type { ExitNetwork } from './exit-network';
import type { NetworkAssessment, Streak } from './here';

export interface VerdictChange {
  serverId: ServerId;
  previous: Reachability | null;
  current: Reachability;
}

export interface LoggedVerdict {
  reachability: Reachability;
  /** A verdict not worth a line (see above): the next quiet one is not logged either. */
  quiet: boolean;
}

/** What has been said so far, fed back into the next plan. */
export interface Reported {
  /** The last verdict listeners heard, per server (only to notice changes, never read as a verdict). */
  shown: ReadonlyMap<ServerId, Reachability>;
  /** The verdict the last log line of each server stated. */
  logged: ReadonlyMap<ServerId, LoggedVerdict>;
  /** The network-lost reason last logged, or null. */
  networkLost: string | null;
}

export const NOTHING_REPORTED: Reported = { shown: new Map(), logged: new Map(), networkLost: null };

export function isQuiet(current: Reachability, streak: Streak, network: NetworkAssessment): boolean {
  return current.verdict === 'ok' || (current.verdict === 'unknown' && current.vantagePoints.length === 0 && (network.lost || !streak.latest));
}

/** Whether the log should state `current` now (null: the last line still holds or it is not worth one). */
export function verdictLineDue(logged: LoggedVerdict | undefined, current: Reachability, quiet: boolean): { line: boolean; logged: LoggedVerdict } | null {
  if (logged && logged.reachability.verdict === current.verdict && sameVantages(logged.reachability, current)) return null;
  return { line: !((logged?.quiet ?? true) && quiet), logged: { reachability: current, quiet } };
}

export function changed(previous: Reachability | null, current: Reachability): boolean {
  return !previous || previous.verdict !== current.verdict || previous.reason !== current.reason || !sameVantages(previous, current);
}

export function verdictLine(name: string, current: Reachability, spend: string): string {
  return `reachability: ${name} is ${describeVerdict(current.verdict)}: ${current.reason}${spend}`;
}

/** The line for a change of the network-lost state, and the state to remember. */
export function networkLine(previous: string | null, network: NetworkAssessment): { line: string | null; lost: string | null } {
  const lost = network.lost ? (network.reason ?? 'your network looks down') : null;
  if (lost === previous) return { line: null, lost };
  return { line: lost ? `reachability: ${lost}: no server is blamed while it lasts` : 'reachability: your network answers again: verdicts are derived as usual', lost };
}

export function roundLine(targetName: string, failures: number, vantages: readonly { name: string; network: ExitNetwork }[], why: string): string {
  return `reachability: ${targetName} keeps failing from here (${failures} in a row): asking ${vantages.map((c) => `${c.name} (${c.network.label})`).join(', ')} (${why})`;
}

/** How a confirmation from here went: its result, or why it could not run. */
export type ConfirmationOutcome = { ran: true; delayMs: number | null; at: number } | { ran: false; error: string };

export function confirmationLine(name: string, failures: number, outcome: ConfirmationOutcome): string {
  const what = !outcome.ran ? `the test could not run (${outcome.error})` : outcome.delayMs !== null ? `answered in ${outcome.delayMs} ms` : 'no answer';
  return `reachability: ${name} re-tested from here after ${failures} failure(s) in a row: ${what}`;
}

export function vantageProbeLine(
  targetName: string,
  vantage: { name: string; network: ExitNetwork },
  result: { reached: boolean; inconclusive?: boolean; error?: string; delayMs?: number },
): string {
  const through = `${vantage.name} (${vantage.network.label})`;
  if (result.inconclusive) return `reachability: probe of ${targetName} through ${through}: no vote (${result.error ?? 'inconclusive'})`;
  const what = result.reached
    ? `reached${result.delayMs !== undefined ? ` in ${Math.round(result.delayMs)} ms` : ''}`
    : `not reached (${result.error ?? 'no answer'}): a statement about the path between ${vantage.name} and ${targetName}`;
  return `reachability: probe of ${targetName} through ${through}: ${what}`;
}

function sameVantages(a: Reachability, b: Reachability): boolean {
  if (a.vantagePoints.length !== b.vantagePoints.length) return false;
  return a.vantagePoints.every((v, i) => v.serverId === b.vantagePoints[i]?.serverId && v.reached === b.vantagePoints[i]?.reached);
}

const VERDICT_WORDS: Record<Verdict, string> = {
  ok: 'ok',
  failing: 'failing',
  down: 'down',
  'blocked-here': 'blocked here',
  blocked: 'address blocked',
  unknown: 'unknown',
};

function describeVerdict(verdict: Verdict): string {
  return VERDICT_WORDS[verdict];
}
