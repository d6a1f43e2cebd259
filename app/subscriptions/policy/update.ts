/**
 * What an update's fetch does to a subscription (spec: a failed update keeps the previous list).
 * A failed fetch, an empty response or a body with no usable server keeps the servers and says
 * why; a provider that now lists nothing keeps them too until the user confirms the empty list;
 * otherwise the new list replaces the old, each server keeping its id where it is the same
 * server. The headers are the provider's word on usage and name; the body's STATUS / REMARKS
 * lines stand in when they are silent.
 */
import type { Subscription, SubscriptionErrorKind } from '../../../shared/domain/subscription';
import type { FetchOutcome } from '../fetch';
import { assignIds } from '../identity';
import { type ParseNote, parseSubscription } from '../parse';

export type UpdateResult =
  /** The previous servers are kept; `message` is the subscription's error, as the user reads it. */
  | { kind: 'failed'; next: Subscription; message: string; notes: ParseNote[] }
  | { kind: 'pending-empty'; next: Subscription; logLine: string; notes: ParseNote[] }
  | { kind: 'updated'; next: Subscription; logLine: string; notes: ParseNote[] };

/**
 * `fetched`: the subscription as it is when the fetch returned. `nameFromTitle`: the first fetch
 * of a subscription added without a name takes the provider's.
 */
export function updateFromFetch(fetched: Subscription, outcome: FetchOutcome, nameFromTitle: boolean, now: number): UpdateResult {
  const current: Subscription = {
    ...fetched,
    lastAttemptAt: now,
    updateIntervalHours: outcome.ok ? outcome.updateIntervalHours : (fetched.updateIntervalHours ?? null),
    // Whatever the body held, the provider's message is its latest word (a device limit often comes with no servers).
    announce: outcome.ok ? outcome.announce : (fetched.announce ?? null),
  };
  const kept = current.servers.length;
  const keptText = kept > 0 ? ` The previous ${plural(kept, 'server')} ${kept === 1 ? 'is' : 'are'} kept.` : '';
  const failed = (next: Subscription, message: string, kind: SubscriptionErrorKind, notes: ParseNote[] = []): UpdateResult => ({
    kind: 'failed',
    next: { ...next, lastError: message, lastErrorKind: kind },
    message,
    notes,
  });

  if (!outcome.ok) return failed(current, `Could not update: ${outcome.message}.${keptText}`, outcome.kind);
  const parsed = parseSubscription(outcome.body);
  if (parsed.format === 'empty') return failed(current, `Could not update: the provider sent an empty response.${keptText}`, 'empty-response');
  const usage = outcome.usage ?? parsed.info?.usage ?? current.usage;
  const name = nameFromTitle ? (outcome.title ?? parsed.info?.remarks ?? current.name) : current.name;

  if (parsed.servers.length === 0 && parsed.rejected.length > 0) {
    const first = parsed.rejected[0]?.reason ?? '';
    const more = parsed.rejected.length > 1 ? `; ${plural(parsed.rejected.length, 'entry', 'entries')} rejected in all` : '';
    return failed({ ...current, name, usage }, `Could not update: no usable server in the provider's response (${first}${more}).${keptText}`, 'no-usable-server', parsed.notes);
  }

  if (parsed.servers.length === 0 && kept > 0) {
    const next: Subscription = {
      ...current,
      name,
      usage,
      pendingEmpty: true,
      lastError: `The provider now lists no servers. The previous ${plural(kept, 'server')} ${kept === 1 ? 'is' : 'are'} kept until you confirm the empty list.`,
      // The window says this one in the user's words with pendingEmpty; there is no failure kind.
      lastErrorKind: null,
    };
    return { kind: 'pending-empty', next, logLine: `"${name}": the provider now lists no servers; waiting for the user to confirm`, notes: parsed.notes };
  }

  const servers = assignIds(current.id, current.servers, parsed.servers);
  const next: Subscription = { ...current, name, servers, usage, rejected: parsed.rejected, updatedAt: now, lastError: null, lastErrorKind: null, pendingEmpty: false };
  const rejectedText = parsed.rejected.length > 0 ? `, ${parsed.rejected.length} rejected` : '';
  const logLine = `"${name}" updated (${parsed.format})${outcome.viaTunnel ? ' through the tunnel' : ''}: ${plural(servers.length, 'server')}${rejectedText}`;
  return { kind: 'updated', next, logLine, notes: parsed.notes };
}

export function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}
