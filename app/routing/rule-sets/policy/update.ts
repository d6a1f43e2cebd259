/**
 * When a rule set is fetched again, and whether a fetched file may replace the copy in force.
 * Pure. A set is fetched as soon as it is chosen, then every `updateHours` (a day unless said);
 * a failed update keeps the copy in force and is tried again sooner (within the hour, never more
 * often than every 10 minutes). A copy fetched for another address, format or list is no copy of
 * this set: the set is due at once and nothing stale is routed by.
 */
import type { RuleSet } from '../../../../shared/rule-sets';

const HOUR = 3_600_000;

export const UPDATE_RULES = {
  retryAfterFailureMs: HOUR,
  minRetryMs: 10 * 60_000,
  /**
   * Larger files are not read. runetfreedom's geosite.dat, the largest of the well-known sources,
   * is about 75 MB (its `ru-blocked-all` list holds most of the Russian registry); 128 MiB leaves
   * it room to grow and still stops a runaway answer.
   */
  maxBytes: 128 * 1024 * 1024,
} as const;

/** What is kept about a set between runs (the copy in force and the last attempt). */
export interface UpdateRecord {
  /** What the copy was fetched as: a copy of another source is not this set's. */
  source: { url: string; format: RuleSet['format']; list?: string | undefined };
  copy: { fetchedAt: number; bytes: number; entries: number } | null;
  lastAttemptAt: number | null;
  lastError: string | null;
}

export function sameSource(set: Pick<RuleSet, 'url' | 'format' | 'list'>, source: UpdateRecord['source']): boolean {
  return set.url === source.url && set.format === source.format && (set.list ?? '').toLowerCase() === (source.list ?? '').toLowerCase();
}

/** The record of this set as it stands now, or null when there is none for its source. */
export function recordFor(set: RuleSet, record: UpdateRecord | undefined): UpdateRecord | null {
  return record && sameSource(set, record.source) ? record : null;
}

/** When the set should next be fetched (epoch ms); null when it is off. */
export function nextUpdateAt(set: RuleSet, stored: UpdateRecord | undefined): number | null {
  if (!set.enabled) return null;
  const record = recordFor(set, stored);
  if (!record) return 0;
  const interval = set.updateHours * HOUR;
  const lastSuccess = record.copy?.fetchedAt ?? 0;
  const lastAttempt = record.lastAttemptAt ?? lastSuccess;
  if (record.lastError !== null && lastAttempt >= lastSuccess) {
    return lastAttempt + Math.max(UPDATE_RULES.minRetryMs, Math.min(interval, UPDATE_RULES.retryAfterFailureMs));
  }
  return lastSuccess + interval;
}

/** The sets due at `now`, most overdue first. */
export function dueForUpdate(sets: readonly RuleSet[], records: Readonly<Record<string, UpdateRecord>>, now: number): RuleSet[] {
  return sets
    .map((set) => ({ set, at: nextUpdateAt(set, records[set.id]) }))
    .filter((x): x is { set: RuleSet; at: number } => x.at !== null && x.at <= now)
    .sort((a, b) => a.at - b.at)
    .map((x) => x.set);
}

/**
 * Whether a file that was read may replace the copy in force: null when it may, else why not.
 * An empty list would quietly route nothing by the set, so it is refused like a broken file.
 */
export function candidateProblem(candidate: { bytes: number; entries: number }, maxBytes: number = UPDATE_RULES.maxBytes): string | null {
  if (candidate.bytes > maxBytes) return `the file is larger than ${Math.round(maxBytes / 1024 / 1024)} MiB`;
  if (candidate.entries === 0) return 'the list is empty';
  return null;
}
