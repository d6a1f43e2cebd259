/**
 * A server group whose pick only a carrier (sing-box) runs: the tunnel hosts that pick in a
 * carrier of its own, behind a loopback SOCKS5 inbound, and the group's outbound in the main core
 * is a SOCKS5 hop to it, as the main connection's `proxy` is for a carried server. One carrier per
 * carried pick, so a group's switch starts and stops only its own process and a carrier that dies
 * takes down one group's traffic, never another's or the main connection's. Pure: which picks are
 * carried, what the main core dials in their place, and whose a carrier's failure is.
 */
import type { Server } from '../../shared/domain/server';
import type { CoreProfile } from './capabilities';
import { carrierStandIn, chooseCarrier } from './carrier';
import { type GroupRoute, groupTag, groupTags, groupViaTag } from './group-outbounds';
import { CARRIER_TAGS } from './sing-box/config';

/**
 * The carrier that runs a group's pick, or null when the main core runs it (or the group has no
 * pick). A pick neither runs is left to the main core, whose config refuses it with its reason.
 */
export function groupPickCarrier(group: GroupRoute, main: CoreProfile, carriers: readonly CoreProfile[]): CoreProfile | null {
  if (!group.pick) return null;
  const choice = chooseCarrier(group.pick.server, group.pick.via, main, carriers);
  return choice.kind === 'carried' ? choice.core : null;
}

/**
 * The group as the main core carries it: a carried pick is replaced by the SOCKS5 hop to its
 * carrier's inbound on `carrierPort` (the carrier dials the front of a chained pick itself), so
 * the group's outbound still leaves through its own dialer and its counters stay the group's.
 */
export function groupRouteInCore(group: GroupRoute, carrierPort: number | undefined): GroupRoute {
  if (!group.pick || carrierPort === undefined) return group;
  return { name: group.name, pick: { server: carrierStandIn(group.pick.server, carrierPort) } };
}

/**
 * A group carrier names the outbound that failed by its own tags (`proxy`, `proxy-via`); the
 * tunnel knows the group's by the group's tags, so a failure is told as the group's pick's (or
 * its front's), never as the main connection's `proxy`.
 */
export function groupCarrierTag(group: string, carrierTag: string | null): string {
  return carrierTag === CARRIER_TAGS.via ? groupViaTag(group) : groupTag(group);
}

/**
 * Whether a failure the main core logged is on the SOCKS5 hop of a group whose pick is carried
 * (`carried`: those groups' names). Such a failure is the carrier's to report, from its own log,
 * where it names the server's address and the real cause; the main core would only echo it as
 * its hop's ("server rejects request"), a second failure of the same dial.
 */
export function onCarriedGroupHop(outboundTag: string | null, carried: Iterable<string>): boolean {
  if (outboundTag === null) return false;
  for (const name of carried) if (groupTags(name).includes(outboundTag)) return true;
  return false;
}

/** The server a group carrier hosts, for its log lines. */
export const groupCarrierLabel = (group: string, server: Server): string => `group ${group}'s carrier (${server.name})`;
