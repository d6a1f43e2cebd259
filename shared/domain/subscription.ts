import type { Server, SubscriptionId } from './server';

/** Usage figures from the `subscription-userinfo` header, else the body's `STATUS=` line (bytes; expire in epoch seconds). */
export interface SubscriptionUsage {
  upload?: number;
  download?: number;
  total?: number;
  expire?: number;
}

/** An entry the parser could not use, with where it was and why. */
export interface RejectedEntry {
  /** 1-based line (or item index for JSON / YAML lists). */
  line: number;
  reason: string;
  /** The start of the entry with credentials masked. */
  excerpt: string;
}

export interface SubscriptionSource {
  /** A URL fetched on update, or text the user pasted (then `url` is absent). */
  url?: string;
  /** The User-Agent this subscription is fetched with, when the user set one (some panels choose the format by it). */
  userAgent?: string;
}

export interface Subscription extends SubscriptionSource {
  id: SubscriptionId;
  name: string;
  servers: Server[];
  usage: SubscriptionUsage | null;
  /** Entries rejected by the last successful parse. */
  rejected: RejectedEntry[];
  updatedAt: number | null;
  /** When an update was last tried, successful or not (epoch ms). */
  lastAttemptAt?: number | null;
  /** How often the provider asks to be fetched (`profile-update-interval`, hours). */
  updateIntervalHours?: number | null;
  /**
   * The provider's message to its users (`announce` header: plain or `base64:`), as of the last
   * answer: a device limit reached, a renewal reminder, a server moved.
   */
  announce?: string | null;
  /** The last update's failure, when it failed; the previous server list is kept. */
  lastError: string | null;
  /** What kind of failure `lastError` is, for a sentence in the user's language (its detail stays `lastError`). */
  lastErrorKind?: SubscriptionErrorKind | null;
  /**
   * An update returned no servers at all: the old list is kept until the user confirms that the
   * empty list should replace it.
   */
  pendingEmpty: boolean;
}

/**
 * Why an update failed: the fetch's own kinds (the network, the provider's server) and what the
 * body held (`empty-response`: nothing at all; `no-usable-server`: entries, none of them usable).
 */
export const SUBSCRIPTION_ERROR_KINDS = [
  'invalid-url',
  'timeout',
  'too-large',
  'http-status',
  'redirects',
  'dns',
  'refused',
  'reset',
  'tls',
  'network',
  'empty-response',
  'no-usable-server',
] as const;

export type SubscriptionErrorKind = (typeof SUBSCRIPTION_ERROR_KINDS)[number];
