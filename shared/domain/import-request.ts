/**
 * A request to add something that arrived from outside the app: a panel's "add to app" link, a
 * QR code. Untrusted input: the user sees what it would add and decides; nothing is fetched or
 * added before that.
 */

/** What a request would add, as the link or code said it. */
export type ImportTarget =
  /** A subscription to fetch from this http(s) address. */
  | { kind: 'subscription'; url: string }
  /** One or more share links (vless://, ss://, …) to add as a subscription of their own. */
  | { kind: 'links'; text: string; /** credential-masked, for the confirmation */ excerpt: string };

export interface ImportRequest {
  id: string;
  receivedAt: number;
  /** Where it came from: the link's scheme ("hiddify", "sing-box"), or "qr". */
  source: string;
  /** The name the link proposes, if any (shown, and used unless the provider names itself). */
  name: string | null;
  /** What it would add, or why it cannot be read. */
  target: ImportTarget | { kind: 'unreadable'; reason: string; excerpt: string };
}
