import type { ParsedServer } from '../../../shared/domain/server';
import type { RejectedEntry } from '../../../shared/domain/subscription';
import type { ConfigScope, ParseNote, ScopedEntry } from './types';
import { placeholderReason } from './validate';

/**
 * Resolves chains ("dial through that one": Xray `proxySettings.tag` / `sockopt.dialerProxy`,
 * sing-box `detour`, Clash `dialer-proxy`) inside each config, where the references mean
 * something, and turns them into `viaName`s that name a server of the whole result.
 *
 * The rules, chosen so a chained server is never run differently from what the provider meant
 * without the user being told:
 * - through another server of the same config → kept, `viaName` = that server's name (made
 *   unique in the result if another server has the same name, so the id lookup cannot pick the
 *   wrong one);
 * - through a direct / freedom outbound (often there only for TLS fragmentation) → kept, dialing
 *   directly, with a note that those settings are not used;
 * - through a group, a block, a rejected entry or something that does not exist → rejected: the
 *   server was meant to be reached only through that hop;
 * - a chain that loops → every server in the loop rejected.
 */
export function resolveChains(scopes: ConfigScope[]): { servers: ParsedServer[]; rejected: RejectedEntry[]; notes: ParseNote[] } {
  const rejected: RejectedEntry[] = [];
  const notes: ParseNote[] = [];
  const kept: ScopedEntry[] = [];
  const targetOf = new Map<ScopedEntry, ScopedEntry>();

  for (const scope of scopes) {
    const byRef = new Map<string, ScopedEntry>();
    for (const entry of scope.entries) if (entry.ref !== null && !byRef.has(entry.ref)) byRef.set(entry.ref, entry);
    const refused = new Map<ScopedEntry, string>();

    for (const entry of scope.entries) {
      if (entry.via === null) continue;
      const target = byRef.get(entry.via);
      const via = JSON.stringify(entry.via.slice(0, 60));
      if (target === entry) {
        notes.push({ line: entry.line, note: `dials through itself (${via}); the chain is ignored`, excerpt: entry.excerpt });
        continue;
      }
      if (target) {
        targetOf.set(entry, target);
        continue;
      }
      switch (scope.others.get(entry.via)) {
        case 'direct':
          notes.push({
            line: entry.line,
            note: `dials through ${via}, a direct outbound: its settings (such as TLS fragmentation) are not used and the server is dialed directly`,
            excerpt: entry.excerpt,
          });
          break;
        case 'group':
          refused.set(entry, `dials through ${via}, a group of servers; chains through groups are not supported`);
          break;
        case 'block':
          refused.set(entry, `dials through ${via}, which blocks all traffic`);
          break;
        case 'unsupported':
          refused.set(entry, `dials through ${via}, which was rejected`);
          break;
        default:
          refused.set(entry, `dials through ${via}, which is not in this config`);
      }
    }

    for (const entry of scope.entries) {
      const placeholder = placeholderReason(entry.server);
      if (placeholder) refused.set(entry, placeholder);
    }

    // A server whose hop was refused cannot be run as meant either; repeat until nothing changes.
    for (let changed = true; changed; ) {
      changed = false;
      for (const [entry, target] of targetOf) {
        if (refused.has(entry) || !refused.has(target)) continue;
        refused.set(entry, `dials through ${JSON.stringify((entry.via ?? '').slice(0, 60))}, which was rejected`);
        changed = true;
      }
    }
    for (const entry of scope.entries) {
      if (refused.has(entry) || !targetOf.has(entry)) continue;
      const seen = new Set<ScopedEntry>([entry]);
      for (let hop = targetOf.get(entry); hop; hop = targetOf.get(hop)) {
        if (seen.has(hop)) {
          for (const member of seen) if (!refused.has(member)) refused.set(member, 'its dialing chain loops back on itself');
          break;
        }
        seen.add(hop);
      }
    }

    for (const entry of scope.entries) {
      const reason = refused.get(entry);
      if (reason) rejected.push({ line: entry.line, reason, excerpt: entry.excerpt });
      else kept.push(entry);
    }
  }

  nameChainTargets(kept, targetOf);
  return { servers: kept.map((e) => e.server), rejected, notes };
}

/**
 * Makes every chain target the first server of the result with its name (ids are looked up by
 * name, first match): a target that a server earlier in the list shares its name with is
 * renamed "name (2)", "name (3)"…; then its users are pointed at that name.
 */
function nameChainTargets(kept: ScopedEntry[], targetOf: Map<ScopedEntry, ScopedEntry>): void {
  if (targetOf.size === 0) return;
  const names = new Set(kept.map((e) => e.server.name));
  const firstByName = new Map<string, ScopedEntry>();
  for (const entry of kept) if (!firstByName.has(entry.server.name)) firstByName.set(entry.server.name, entry);
  const targets = new Set(targetOf.values());
  for (const entry of kept) {
    if (!targets.has(entry) || firstByName.get(entry.server.name) === entry) continue;
    const base = entry.server.name;
    let n = 2;
    while (names.has(`${base} (${n})`)) n++;
    entry.server.name = `${base} (${n})`;
    names.add(entry.server.name);
    firstByName.set(entry.server.name, entry);
  }
  for (const entry of kept) {
    const target = targetOf.get(entry);
    if (target) entry.server.viaName = target.server.name;
  }
}
