/**
 * Which hop of a connection a core's failure line is about. The core names the outbound by tag
 * (the server's own, or its upstream's when chained) or, in lines without a tag, only the address
 * it dialled; a line about any other outbound (direct, a group) is not the connection's to report.
 */
import type { Server } from '../../shared/domain/server';
import { TUNNEL_TAGS } from '../core';

/** false: the server itself; true: its upstream; null: another outbound. */
export function failingHop(tag: string | null, address: string | null, server: Server, via: Server | undefined): boolean | null {
  if (tag === TUNNEL_TAGS.proxy) return false;
  if (tag === TUNNEL_TAGS.via) return true;
  if (tag !== null || address === null) return null;
  if (sameEndpoint(address, server)) return false;
  if (via && sameEndpoint(address, via)) return true;
  return null;
}

/** `host:port`, `[v6]:port` or a bare host, as the core writes them. */
function sameEndpoint(address: string, server: Server): boolean {
  const bare = address.replace(/^\[|\](?=:\d+$)/g, '');
  return bare === `${server.address}:${server.port}` || bare === server.address;
}
