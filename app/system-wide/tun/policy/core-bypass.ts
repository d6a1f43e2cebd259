/**
 * How the core's own connections are kept out of the TUN device (pure). By their socket mark,
 * which a kernel rule sends past the device, wherever that works: sing-box then has no process
 * rule, which costs every new connection a search of /proc for its owner (tens of ms each). By
 * the core's path otherwise:
 * - off Linux, and on Linux when the core may not mark its sockets;
 * - when a hop is given by host name: the core resolves it with the system's resolver, whose
 *   packets carry no mark, so they would enter the device and be answered through the core that
 *   is asking, a loop; by path sing-box sends the core's lookups direct.
 */
import type { Server } from '../../../../shared/domain/server';
import { isIpAddress } from '../../../../shared/routing';

export type CoreBypass = { by: 'mark'; mark: number } | { by: 'path'; why: string };

export function coreBypass(o: { linux: boolean; coreMayMark: boolean; mark: number; hops: readonly Pick<Server, 'address'>[] }): CoreBypass {
  if (!o.linux) return { by: 'path', why: 'only Linux routes by socket mark here' };
  if (!o.coreMayMark) return { by: 'path', why: 'the core may not mark its sockets (it needs CAP_NET_ADMIN)' };
  const named = o.hops.find((hop) => !isIpAddress(hop.address));
  if (named) return { by: 'path', why: `the server is given by name (${named.address}), and the core's lookups of it carry no mark` };
  return { by: 'mark', mark: o.mark };
}
