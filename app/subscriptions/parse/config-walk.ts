/**
 * The walk the JSON config formats (Xray / v2ray, sing-box) share: a body is one config or an
 * array of them; each config is a scope whose items are servers, things a reference may name
 * (a group, direct, block) or hops read with another item. A server that cannot be read is
 * rejected with a masked excerpt, the notes about it are dropped, and its tag is remembered as
 * unsupported so a chain through it says why. Item numbers: the item's position in a single
 * config, the config's position in an array. Each format says only how it reads an item.
 */
import type { Endpoint, ParsedServer } from '../../../shared/domain/server';
import { hostPort } from '../../../shared/domain/server';
import { maskedObjectExcerpt } from './text';
import type { ConfigScope, FormatOutput, NonServerKind } from './types';
import { EntryError } from './validate';

export type Json = Record<string, unknown>;

/** What a server item reads as: its endpoint, its name (empty: named by its address) and the tag it goes through. */
export interface ReadItem {
  endpoint: Endpoint;
  name: string;
  via: string;
}

/** One item of a config, as its format sees it. */
export type ConfigItem =
  /** Read with another item (sing-box's shadowtls hop): no entry of its own, but it keeps its number. */
  | { kind: 'passed-over' }
  | { kind: 'not-a-server'; tag: string; what: NonServerKind }
  | { kind: 'server'; raw: unknown; tag: string; read: (note: (text: string) => void) => ReadItem };

export interface ConfigFormat {
  /** The format's word in the rejection of an item it failed on unexpectedly: `xray`, `sing-box`. */
  name: string;
  items(config: Json): ConfigItem[];
  /** What the format reads of a whole config once its servers are known; `line` is the config's number. */
  afterConfig?(config: Json, scope: ConfigScope, line: number, out: FormatOutput): void;
}

export const PASSED_OVER: ConfigItem = { kind: 'passed-over' };

export function walkConfigs(configs: Json[], isArray: boolean, format: ConfigFormat): FormatOutput {
  const out: FormatOutput = { scopes: [], rejected: [], notes: [] };
  configs.forEach((config, configIndex) => {
    const scope: ConfigScope = { entries: [], others: new Map() };
    format.items(config).forEach((item, index) => {
      if (item.kind === 'passed-over') return;
      if (item.kind === 'not-a-server') {
        if (item.tag) scope.others.set(item.tag, item.what);
        return;
      }
      const line = isArray ? configIndex + 1 : index + 1;
      const excerpt = maskedObjectExcerpt(item.raw);
      const notesBefore = out.notes.length;
      try {
        const { endpoint, name, via } = item.read((note) => out.notes.push({ line, note, excerpt }));
        const server: ParsedServer = { name: name || hostPort(endpoint.address, endpoint.port), ...endpoint };
        scope.entries.push({ server, line, excerpt, ref: item.tag || null, via: via || null });
      } catch (error) {
        out.notes.length = notesBefore; // notes about an entry that was rejected after all
        if (item.tag) scope.others.set(item.tag, 'unsupported');
        const reason = error instanceof EntryError ? error.reason : `${format.name}: could not be read (${String(error)})`;
        out.rejected.push({ line, reason, excerpt });
      }
    });
    format.afterConfig?.(config, scope, isArray ? configIndex + 1 : 1, out);
    out.scopes.push(scope);
  });
  return out;
}
