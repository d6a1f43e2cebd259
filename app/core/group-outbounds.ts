/**
 * The outbounds of server groups in the tunnel's config: one per group, tagged as the routing
 * rules name it (`group:AI`), carrying the group's pick (through its front when chained) beside
 * the main connection's `proxy`; a group with no pick is a blackhole that answers plain HTTP with
 * 403, so its traffic fails at once instead of leaking through the main server or going direct.
 * The same outbound, rewritten for another pick, is what a live swap hands the core (group-swap.ts).
 */
import type { Server } from '../../shared/domain/server';
import { GROUP_OUTBOUND_PREFIX, type GroupOutbound } from '../../shared/routing';
import type { CoreProfile } from './capabilities';
import { outboundFor } from './outbound';

export interface GroupRoute {
  name: string;
  /** The member the group is on (with its front, when chained), or null when it has none. */
  pick: { server: Server; via?: Server } | null;
}

export const groupTag = (name: string): GroupOutbound => `${GROUP_OUTBOUND_PREFIX}${name}`;
/** The front of a group's chained pick: its own tag, so it never meets the main connection's `proxy-via`. */
export const groupViaTag = (name: string): string => `${groupTag(name)}/via`;

/** The outbounds of one group (its pick, and the pick's front when chained). */
export function groupOutboundsOf(group: GroupRoute, core: CoreProfile): Record<string, unknown>[] {
  const tag = groupTag(group.name);
  if (!group.pick) return [{ tag, protocol: 'blackhole', settings: { response: { type: 'http' } } }];
  const { server, via } = group.pick;
  const outbounds = [outboundFor(server, core, tag, via ? { viaTag: groupViaTag(group.name) } : {})];
  if (via) outbounds.push(outboundFor(via, core, groupViaTag(group.name)));
  return outbounds;
}

/** Stats counter names for a group's outbound (its own counters, apart from the main connection's). */
export const groupDownlinkStat = (name: string): string => `outbound>>>${groupTag(name)}>>>traffic>>>downlink`;
export const groupUplinkStat = (name: string): string => `outbound>>>${groupTag(name)}>>>traffic>>>uplink`;
