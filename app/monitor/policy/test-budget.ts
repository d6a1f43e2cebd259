/**
 * Which tests run for which servers (issue 26: what the monitor costs the user). Pure rules:
 *
 * - Delay probes go to every server: they are small (one warm round trip) and they are what the
 *   list, Auto's queue and reachability read.
 * - Transfer tests (64 KB each) go only to the servers in focus: the current server, the next
 *   `candidates` of Auto's queue, and any server the user opened. Those are the servers Auto may
 *   move to next and the ones the user looks at; a transfer result of any other server is a bill
 *   with no reader. The others get one once they are among the candidates. `everyServer` is the
 *   old rule (every server that answers), kept as a switch to compare the two.
 * - At the daily cap (the bytes of the last 24 h, when a cap is set) testing falls back to delay
 *   probes of the servers in focus: no transfer tests, no IP-info lookups, no IPv6 checks, and
 *   the other servers keep their last results until the usage falls under the cap.
 */
import type { ServerId } from '../../../shared/domain/server';

export interface TestFocus {
  /** The server carrying traffic (or selected), first in Auto's eyes. */
  current: readonly ServerId[];
  /** Auto's next candidates after the current server, in queue order, at most K. */
  candidates: readonly ServerId[];
  /** Servers the user opened (their details) recently. */
  opened: ReadonlySet<ServerId>;
}

export interface TestAllowance {
  /** The old rule: transfer tests for every server that answers. */
  everyServer: boolean;
  /** The daily cap is reached. */
  capped: boolean;
}

export function inFocus(id: ServerId, focus: TestFocus): boolean {
  return focus.current.includes(id) || focus.candidates.includes(id) || focus.opened.has(id);
}

/** Whether a background transfer test of `id` may run. */
export function mayTransferTest(id: ServerId, focus: TestFocus, allowance: TestAllowance): boolean {
  if (allowance.capped) return false;
  return allowance.everyServer || inFocus(id, focus);
}

/** Whether a background delay probe of `id` may run. */
export function mayDelayTest(id: ServerId, focus: TestFocus, allowance: TestAllowance): boolean {
  return !allowance.capped || inFocus(id, focus);
}

/** IP-info lookups and IPv6 checks run only under the cap. */
export function mayLookUp(allowance: TestAllowance): boolean {
  return !allowance.capped;
}

/** The cap is reached: a cap is set and the last day's bytes came to it. */
export function capReached(lastDayBytes: number, capBytesPerDay: number): boolean {
  return capBytesPerDay > 0 && lastDayBytes >= capBytesPerDay;
}

/** The next `k` servers of Auto's queue after the current one (the current server is not a candidate of itself). */
export function nextCandidates(queue: readonly ServerId[], current: ServerId | null, k: number): ServerId[] {
  return queue.filter((id) => id !== current).slice(0, Math.max(0, k));
}
