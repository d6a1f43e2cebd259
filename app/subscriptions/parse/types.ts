import type { ParsedServer } from '../../../shared/domain/server';
import type { RejectedEntry } from '../../../shared/domain/subscription';
import type { SubscriptionInfo } from './info-lines';

/**
 * What a subscription body was recognised as. `base64/<inner>` when a base64 body wrapped
 * something other than a list of links (rare, but seen with Clash YAML).
 */
export type SubscriptionFormat = string;

/** Something the user should know about a kept entry (a setting that was ignored, a chain dropped). */
export interface ParseNote {
  /** 1-based line (or item index for JSON / YAML), as for rejected entries. */
  line: number;
  note: string;
  /** Credential-masked start of the entry. */
  excerpt: string;
}

export interface ParseResult {
  format: SubscriptionFormat;
  servers: ParsedServer[];
  rejected: RejectedEntry[];
  notes: ParseNote[];
  /**
   * What the body's own info lines say about the subscription (`STATUS=` usage, `REMARKS=`
   * name), when it has any; the response headers, when sent, say it first.
   */
  info?: SubscriptionInfo;
}

/**
 * One entry of a config-style format (Xray, sing-box, Clash) before chains are resolved: `via` is
 * the raw reference (an outbound tag or proxy name) as the source wrote it.
 */
export interface ScopedEntry {
  server: ParsedServer;
  line: number;
  excerpt: string;
  /** The tag / name other entries of the same config use to refer to this one. */
  ref: string | null;
  via: string | null;
}

/** What a reference can point at besides a server of the same config. */
export type NonServerKind = 'direct' | 'block' | 'group' | 'unsupported';

/** A config's entries plus what its other references mean (tag → kind). */
export interface ConfigScope {
  entries: ScopedEntry[];
  others: Map<string, NonServerKind>;
}

/** What a format parser hands back: config scopes (links have one scope with no references). */
export interface FormatOutput {
  scopes: ConfigScope[];
  rejected: RejectedEntry[];
  notes: ParseNote[];
}
