/**
 * A subscription the user asked for that was not added, because its first fetch failed or brought
 * no server: the user reads why (the kind, in their language) and may try again, decline, or keep
 * it to be retried later. Nothing was stored.
 */
import type { SubscriptionErrorKind } from '../../shared/domain/subscription';

export class SubscriptionNotAdded extends Error {
  constructor(
    readonly kind: SubscriptionErrorKind,
    message: string,
  ) {
    super(message);
    this.name = 'SubscriptionNotAdded';
  }
}

export function notAddedKindOf(error: unknown): SubscriptionErrorKind | null {
  return error instanceof SubscriptionNotAdded ? error.kind : null;
}
