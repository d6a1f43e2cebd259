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

/**
 * The freedom outbound a group's first hop dials through: its counters are the bytes sent to and
 * received from the group's server on their own, apart from the main connection's (Xray counts a
 * freedom outbound's uplink), which is what the group's stall trigger and the main's need.
 */
export const groupDialTag = (name: string): string => `${groupTag(name)}/dial`;

/** The outbounds of one group: its pick, the pick's front when chained, and the dialer they leave by. */
export function groupOutboundsOf(group: GroupRoute, core: CoreProfile): Record<string, unknown>[] {
  const tag = groupTag(group.name);
  if (!group.pick) return [{ tag, protocol: 'blackhole', settings: { response: { type: 'http' } } }];
  const { server, via } = group.pick;
  const outbounds = [outboundFor(server, core, tag, via ? { viaTag: groupViaTag(group.name) } : {})];
  if (via) outbounds.push(outboundFor(via, core, groupViaTag(group.name)));
  const first = outbounds.length - 1;
  outbounds[first] = dialThrough(outbounds[first]!, groupDialTag(group.name));
  outbounds.push({ tag: groupDialTag(group.name), protocol: 'freedom', settings: {} });
  return outbounds;
}

/** Every tag a group's outbounds may carry (what a swap removes before it adds the next pick's). */
export const groupTags = (name: string): string[] => [groupTag(name), groupViaTag(name), groupDialTag(name)];

function dialThrough(outbound: Record<string, unknown>, tag: string): Record<string, unknown> {
  const stream = (outbound.streamSettings as Record<string, unknown> | undefined) ?? {};
  return { ...outbound, streamSettings: { ...stream, sockopt: { ...((stream.sockopt as Record<string, unknown> | undefined) ?? {}), dialerProxy: tag } } };
}

/** Stats counter names of a group's traffic: bytes sent to its server and received from it. */
export const groupSentStat = (name: string): string => `outbound>>>${groupDialTag(name)}>>>traffic>>>uplink`;
export const groupReceivedStat = (name: string): string => `outbound>>>${groupDialTag(name)}>>>traffic>>>downlink`;
