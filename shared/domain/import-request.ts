/**
 * A request to add something that arrived from outside the app: a panel's "add to app" link, a
 * QR code. Untrusted input: the user sees what it would add and decides; nothing is fetched or
 * added before that.
 */
import type { ValidationParams, ValidationTopic } from './validation';
import type { SubscriptionErrorKind } from './subscription';

/** What a request would add, as the link or code said it. */
export type ImportTarget =
  /** A subscription to fetch from this http(s) address. */
  | { kind: 'subscription'; url: string }
  /** One or more share links (vless://, ss://, …) to add as a subscription of their own. */
  | { kind: 'links'; text: string; /** credential-masked, for the confirmation */ excerpt: string }
  /**
   * A whole subscription body pasted as it came (base64, Xray / sing-box JSON, Clash YAML, links
   * among other text), already read once so the confirmation can say what it holds.
   */
  | { kind: 'body'; text: string; /** as the parser named it: "base64", "clash-yaml", … */ format: string; servers: number; excerpt: string };

export interface ImportRequest {
  id: string;
  receivedAt: number;
  /** Where it came from: the link's scheme ("hiddify", "sing-box"), "qr", or "paste" (the import box). */
  source: string;
  /** The name the link proposes, if any (shown, and used unless the provider names itself). */
  name: string | null;
  /** The User-Agent the user asked a subscription to be fetched with (the import box), if any. */
  userAgent?: string;
  /**
   * The last Add failed and nothing was added: why (the kind is said in the user's language, the
   * detail is the engine's English). The user may try again, decline, or keep it to retry later.
   */
  failure?: { kind: SubscriptionErrorKind; detail: string };
  /** What it would add, or why it cannot be read. */
  target: ImportTarget | { kind: 'unreadable'; reason: string; excerpt: string; /** Why, as a topic the window words (`validation.import-…`); `reason` is its English. */ problem?: { topic: ValidationTopic; params: ValidationParams } };
}
