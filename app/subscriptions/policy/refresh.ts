/**
 * When a subscription is fetched again by itself. Providers rotate servers and credentials, and a
 * list that is days old is how a client ends up with only dead servers; so every subscription with
 * a URL is refreshed at the interval its provider asks for (`profile-update-interval`), 12 hours
 * when it asks nothing, bounded to 1 hour … 7 days. A failed update is retried sooner (within the
 * hour), and never more often than every 10 minutes; the previous list is kept meanwhile.
 */
import type { Subscription } from '../../../shared/domain/subscription';

const HOUR = 3_600_000;
export const REFRESH_RULES = {
  defaultIntervalMs: 12 * HOUR,
  minIntervalMs: HOUR,
  maxIntervalMs: 7 * 24 * HOUR,
  retryAfterFailureMs: HOUR,
  minRetryMs: 10 * 60_000,
} as const;

/** When the subscription should next be fetched (epoch ms), or null when it has no URL. */
export function nextRefreshAt(subscription: Subscription): number | null {
  if (!subscription.url) return null;
  const asked = subscription.updateIntervalHours ? subscription.updateIntervalHours * HOUR : REFRESH_RULES.defaultIntervalMs;
  const interval = Math.min(REFRESH_RULES.maxIntervalMs, Math.max(REFRESH_RULES.minIntervalMs, asked));
  const lastSuccess = subscription.updatedAt ?? 0;
  const lastAttempt = subscription.lastAttemptAt ?? lastSuccess;
  if (subscription.lastError !== null && lastAttempt > lastSuccess) {
    const retry = Math.max(REFRESH_RULES.minRetryMs, Math.min(interval, REFRESH_RULES.retryAfterFailureMs));
    return lastAttempt + retry;
  }
  return lastSuccess + interval;
}

/** The subscriptions due for a refresh at `now`, most overdue first. */
export function dueForRefresh(subscriptions: readonly Subscription[], now: number): Subscription[] {
  return subscriptions
    .map((s) => ({ s, at: nextRefreshAt(s) }))
    .filter((x): x is { s: Subscription; at: number } => x.at !== null && x.at <= now)
    .sort((a, b) => a.at - b.at)
    .map((x) => x.s);
}
