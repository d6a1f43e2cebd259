/**
 * Servers as the app knows them, from share links (the lab's, in integration tests and
 * benchmarks): parsed and given ids exactly as a subscription update would.
 */
import type { Server } from '../../../shared/domain/server';
import { assignIds } from '../../subscriptions/identity';
import { parseSubscription } from '../../subscriptions/parse';

export function serversFromLinks(links: readonly string[], subscriptionId = 'lab'): Server[] {
  const parsed = parseSubscription(links.join('\n'));
  if (parsed.rejected.length > 0) {
    throw new Error(`share links rejected: ${parsed.rejected.map((r) => `line ${r.line}: ${r.reason}`).join('; ')}`);
  }
  return assignIds(subscriptionId, [], parsed.servers);
}
