/**
 * The queue: the order in which Auto considers a subscription's servers (spec/auto.md "Queue
 * order"). Scored servers first, lowest score first; then the unscored: those with a throughput
 * measurement (fastest first), then never-tested ones, then those whose latest measurement had no
 * answer. Ties keep subscription order.
 *
 * Two additions the spec asks for elsewhere:
 * - Marked (excluded) servers are left out, unless only marked ones remain: then Auto chooses
 *   among them (auto.md "Exclusions").
 * - `blocked-here` and `blocked` servers (spec/reachability.md) sink: a scored one goes after every scored
 *   server that is not blocked here (but before the unscored, since it did answer within 24 h),
 *   an unscored one goes to the very end. Auto's own rules still decide every switch.
 *
 * - A server whose latest transfer test froze (./transfer.ts) counts as not answering: it goes
 *   after every server that may answer, just before those whose latest measurement had no answer
 *   (its pings do answer); the freezing ones among themselves by score.
 *
 * - Within a group, a server whose latest transfer test passed (`ok` or `throttled`) goes before
 *   one with no transfer result yet: a ping says nothing about the 16 KB freeze, so an untested
 *   server may be one (issue: a fresh start in a country that freezes foreign connections).
 *
 * A server whose measurements are all older than 24 h (or of another method than its latest)
 * has nothing that counts: it queues with the never-tested ones unless its latest had no answer.
 */
import type { ServerId } from '../../../shared/domain/server';
import { latestOf, score } from './score';
import { freezesNow, transferPassed } from './transfer';
import type { AutoWorld } from './world';

const Group = {
  Scored: 0,
  ScoredBlockedHere: 1,
  Throughput: 2,
  NeverTested: 3,
  Freezes: 4,
  LatestSilent: 5,
  UnscoredBlockedHere: 6,
} as const;
type Group = (typeof Group)[keyof typeof Group];

interface Ranked {
  id: ServerId;
  index: number;
  group: Group;
  /** 0: its latest transfer test passed; 1: no transfer result yet (or one that could not be made). */
  untested: 0 | 1;
  /** Score for scored groups, negative throughput for the throughput group, else 0. */
  key: number;
}

/** The servers in queue order (`serverIds` in subscription order). */
export function queueOrder(world: AutoWorld, serverIds: readonly ServerId[], now: number, excluded: ReadonlySet<ServerId> = new Set()): ServerId[] {
  const allowed = serverIds.filter((id) => !excluded.has(id));
  const candidates = allowed.length > 0 ? allowed : serverIds;
  return candidates
    .map((id, index) => rank(world, id, index, now))
    .sort((a, b) => a.group - b.group || a.untested - b.untested || a.key - b.key || a.index - b.index)
    .map((r) => r.id);
}

/** The score of each server as the queue sees it (null = unscored), for logs and the UI. */
export function queueScore(world: AutoWorld, id: ServerId, now: number): number | null {
  return score(world.measurements(id), now, { fromCache: world.fromCache(id) });
}

function rank(world: AutoWorld, id: ServerId, index: number, now: number): Ranked {
  return { ...grouped(world, id, index, now), untested: transferPassed(world, id) ? 0 : 1 };
}

function grouped(world: AutoWorld, id: ServerId, index: number, now: number): Omit<Ranked, 'untested'> {
  const verdict = world.verdict(id);
  const blockedHere = verdict === 'blocked-here' || verdict === 'blocked';
  const s = queueScore(world, id, now);
  if (freezesNow(world, id)) return { id, index, group: Group.Freezes, key: s ?? Number.MAX_SAFE_INTEGER };
  if (s !== null) return { id, index, group: blockedHere ? Group.ScoredBlockedHere : Group.Scored, key: s };
  if (blockedHere) return { id, index, group: Group.UnscoredBlockedHere, key: 0 };
  const throughput = world.throughputBps(id);
  if (throughput !== null) return { id, index, group: Group.Throughput, key: -throughput };
  const latest = latestOf(world.measurements(id));
  if (latest && latest.delayMs === null) return { id, index, group: Group.LatestSilent, key: 0 };
  return { id, index, group: Group.NeverTested, key: 0 };
}
