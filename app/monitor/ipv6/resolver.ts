/**
 * Where the IPv6 check learns the test URL host's IPv6 address: the system's resolver
 * (getaddrinfo, so /etc/hosts and the network's DNS, as any app on this machine would see it),
 * asked for AAAA only. No address is an answer of its own ("has no IPv6 address"), never a guess:
 * an IPv4-mapped address is not IPv6.
 */
import { lookup } from 'node:dns/promises';

export type Ipv6Lookup = { address: string } | { address: null; reason: string };

/** Looks up `host`'s IPv6 address. Never rejects. */
export type Ipv6Resolver = (host: string) => Promise<Ipv6Lookup>;

const NO_ADDRESS_CODES = new Set(['ENOTFOUND', 'ENODATA', 'EAI_NODATA', 'EAI_NONAME', 'EAI_ADDRFAMILY']);

export const systemIpv6Resolver: Ipv6Resolver = async (host) => {
  try {
    const { address, family } = await lookup(host, { family: 6 });
    if (family !== 6 || address.toLowerCase().startsWith('::ffff:')) return { address: null, reason: `${host} has no IPv6 address (AAAA)` };
    return { address };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? '';
    if (NO_ADDRESS_CODES.has(code)) return { address: null, reason: `${host} has no IPv6 address (AAAA)` };
    return { address: null, reason: `the IPv6 address of ${host} could not be looked up (${code || (error as Error).message})` };
  }
};
