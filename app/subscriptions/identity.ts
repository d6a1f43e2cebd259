import { hash } from 'node:crypto';
import type { ParsedServer, Server, ServerId, SubscriptionId } from '../../shared/domain/server';
import { credentialOf } from '../../shared/domain/server';

/**
 * Stable server identity across subscription updates, so history, cached results and exclusions
 * follow a server when its provider reorders, renames or re-issues the list.
 *
 * The rule, applied to the new list in its order:
 * 1. **Endpoint first.** A new entry takes the id of a previous server with the same protocol +
 *    address + port + credential (`credentialOf`: UUID, password, method:password, public key…).
 *    Identical entries (the same endpoint listed twice) match in order: the nth occurrence in the
 *    new list takes the id of the nth occurrence in the old one. A rename or a reorder therefore
 *    keeps every id, and two servers that swap names keep their own ids (the name follows the
 *    endpoint, not the other way round).
 * 2. **Then the name**, only among entries and previous servers still unmatched after step 1: a
 *    server whose credential was re-issued, or whose address or port moved, keeps its id when its
 *    name did not change. Duplicate names match in order, as above. (The price: a server that
 *    disappears while a brand-new one arrives under the very same name is taken for the same
 *    server. Providers who name every server alike make that unavoidable without more data.)
 * 3. **Otherwise a new id**, derived from a hash of subscription id + endpoint + occurrence, not
 *    drawn at random: a server removed and later re-added, or the same list added again to the
 *    same subscription, gets the id it had. Should that id already be taken in this list (its
 *    old owner was matched by name to another entry), a counter is mixed in until it is free.
 *
 * Chains: `viaName` is resolved to `via`, the id of the first server of this list with that
 * name. The parser already rejected entries whose hop is not in the list (see
 * parse/chains.ts), so an unknown name can only come from a caller's own data; it is then left
 * without `via` (the core adapter dials such a server directly) and `viaName` stays, so the UI
 * can show what was meant.
 */
export function assignIds(
  subscriptionId: SubscriptionId,
  previous: readonly Server[],
  parsed: readonly ParsedServer[],
  makeId?: () => string,
): Server[] {
  const count = parsed.length;
  const ids: (ServerId | undefined)[] = new Array(count);
  const taken = new Set<ServerId>();

  // Plain loops rather than map / forEach: ten thousand servers pass through each of them.
  const keys: string[] = new Array(count);
  for (let i = 0; i < count; i++) keys[i] = endpointKey(parsed[i] as ParsedServer);
  // A first import has nothing to match: steps 1 and 2 would only fill maps nobody reads.
  if (previous.length > 0) matchPrevious(previous, parsed, keys, ids, taken);

  // Step 3: new, derived ids.
  const idPrefix = `${subscriptionId}\u0000`;
  if (previous.length > 0 || makeId !== undefined || !firstImportIds(idPrefix, keys, ids)) newIds(idPrefix, keys, ids, taken, makeId);

  // Object.assign copies what a spread copies, in the same order, at half the cost for the mixed
  // shapes of a parsed list; `id` and `subscriptionId` are then set as Object.assign's second
  // source set them (in place when the entry already has one), without an object per server.
  const servers: Server[] = new Array(count);
  let chained = false;
  for (let i = 0; i < count; i++) {
    const server = Object.assign({}, parsed[i]) as Server;
    server.id = ids[i] as ServerId;
    server.subscriptionId = subscriptionId;
    servers[i] = server;
    if ('via' in server || server.viaName !== undefined) chained = true;
  }
  // Most lists chain nothing: the map of ids by name is built only for one that does.
  if (!chained) return servers;
  const idByName = new Map<string, ServerId>();
  for (const server of servers) if (!idByName.has(server.name)) idByName.set(server.name, server.id);
  for (const server of servers) {
    // `delete` turns an object into a slow dictionary (ten thousand of them cost more than the rest of this function and
    // slow every later reader), so only a `via` carried over from a caller's server is deleted.
    if ('via' in server) delete server.via;
    if (server.viaName === undefined) continue;
    const via = idByName.get(server.viaName);
    if (via !== undefined && via !== server.id) server.via = via;
  }
  return servers;
}

/** Steps 1 and 2: the ids of previous servers, by endpoint and then by name, written into `ids` and `taken`. */
function matchPrevious(previous: readonly Server[], parsed: readonly ParsedServer[], keys: readonly string[], ids: (ServerId | undefined)[], taken: Set<ServerId>): void {
  const usedPrevious = new Set<number>();

  // Step 1: protocol + address + port + credential, nth occurrence to nth occurrence.
  const previousByKey = groupIndexes(previous, endpointKey);
  const occurrence = new Map<string, number>();
  parsed.forEach((_server, i) => {
    const key = keys[i] as string;
    const n = occurrence.get(key) ?? 0;
    occurrence.set(key, n + 1);
    const match = previousByKey.get(key)?.[n];
    if (match !== undefined) {
      ids[i] = (previous[match] as Server).id;
      taken.add(ids[i] as ServerId);
      usedPrevious.add(match);
    }
  });

  // Step 2: the name, among what is left on both sides.
  const leftByName = new Map<string, number[]>();
  previous.forEach((server, j) => {
    if (usedPrevious.has(j)) return;
    const list = leftByName.get(server.name);
    if (list) list.push(j);
    else leftByName.set(server.name, [j]);
  });
  parsed.forEach((server, i) => {
    if (ids[i] !== undefined) return;
    const match = leftByName.get(server.name)?.shift();
    if (match === undefined) return;
    const id = (previous[match] as Server).id;
    if (taken.has(id)) return;
    ids[i] = id;
    taken.add(id);
  });
}

/**
 * Step 3 for the unmatched entries: the nth occurrence of a key gets the id derived from key and
 * n, salted until it is free. Keys and ids are almost always new, so each is added to its set
 * straight away and the set's size tells whether it was there: one lookup per server where a get
 * (or has) and then a set (or add) made two. Only a repeated key gets a count of its own.
 */
function newIds(idPrefix: string, keys: readonly string[], ids: (ServerId | undefined)[], taken: Set<ServerId>, makeId: (() => string) | undefined): void {
  const newKeys = new Set<string>();
  const repeats = new Map<string, number>();
  for (let i = 0; i < keys.length; i++) {
    if (ids[i] !== undefined) continue;
    const key = keys[i] as string;
    let n = 0;
    const keysBefore = newKeys.size;
    if (newKeys.add(key).size === keysBefore) {
      n = repeats.get(key) ?? 1;
      repeats.set(key, n + 1);
    }
    let id = makeId ? makeId() : derivedId(idPrefix, key, n, 0);
    for (let salt = 1; ; salt++) {
      const idsBefore = taken.size;
      if (taken.add(id).size > idsBefore) break;
      id = makeId ? makeId() : derivedId(idPrefix, key, n, salt);
    }
    ids[i] = id;
  }
}

/**
 * newIds for a first import (nothing previous, derived ids), the same ids with one map instead of
 * two sets: equal keys derive equal first ids, so the map of ids to their keys tells a repeated
 * key from a new one, and the set of keys, which hashed every long key once more, is not built.
 * Returns false, having written nothing, when a first id belongs to another key (60 bits of
 * SHA-256 colliding): newIds then decides, as it always did.
 */
function firstImportIds(idPrefix: string, keys: readonly string[], ids: (ServerId | undefined)[]): boolean {
  const keyOfId = new Map<ServerId, string>();
  const repeats = new Map<string, number>();
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i] as string;
    const first = derivedId(idPrefix, key, 0, 0);
    const owner = keyOfId.get(first);
    if (owner === undefined) {
      keyOfId.set(first, key);
      ids[i] = first;
      continue;
    }
    if (owner !== key) {
      ids.fill(undefined);
      return false;
    }
    // A repeat: its occurrence and salt as newIds finds them.
    const n = repeats.get(key) ?? 1;
    repeats.set(key, n + 1);
    let id = derivedId(idPrefix, key, n, 0);
    for (let salt = 1; keyOfId.has(id); salt++) id = derivedId(idPrefix, key, n, salt);
    keyOfId.set(id, key);
    ids[i] = id;
  }
  return true;
}

/** What identifies a server's endpoint: protocol + address + port + credential. */
export function endpointKey(server: ParsedServer): string {
  return `${server.protocol}\u0000${server.address.toLowerCase()}\u0000${server.port}\u0000${credentialOf(server)}`;
}

function groupIndexes<T>(items: readonly T[], keyOf: (item: T) => string): Map<string, number[]> {
  const groups = new Map<string, number[]>();
  items.forEach((item, index) => {
    const key = keyOf(item);
    const list = groups.get(key);
    if (list) list.push(index);
    else groups.set(key, [index]);
  });
  return groups;
}

/** `idPrefix` is `${subscriptionId}\u0000`, built once per list. */
function derivedId(idPrefix: string, key: string, occurrence: number, salt: number): ServerId {
  // One-shot hashing: ten thousand servers cost ~35 ms instead of ~130 ms with createHash. The
  // usual first occurrence without salt appends one constant instead of four pieces.
  const suffix = occurrence === 0 && salt === 0 ? FIRST_OCCURRENCE : `\u0000${occurrence}\u0000${salt}`;
  return `s${hash('sha256', idPrefix + key + suffix, 'hex').slice(0, 15)}`;
}

const FIRST_OCCURRENCE = '\u00000\u00000';
