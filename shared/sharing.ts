/**
 * Household sharing: the local HTTP and SOCKS5 proxies also offered, behind a username and
 * password, on one LAN address of this machine. Only a private address may be chosen, so the
 * proxies can never be offered to the internet, whatever a settings file or a patch asks for.
 */
import { z } from 'zod';
import { cidrContains, parseIpv4, parseIpv6 } from './cidr';

/** The ranges a shared proxy may listen in: RFC 1918, IPv6 unique local and link-local. */
export const PRIVATE_RANGES = ['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', 'fc00::/7', 'fe80::/10'] as const;

/** Why `address` cannot be a sharing address, or null when it can. */
export function sharingAddressProblem(address: string): string | null {
  const isV6 = address.includes(':');
  if ((isV6 ? parseIpv6(address) : parseIpv4(address)) === null) return `"${address.slice(0, 64)}" is not an IP address`;
  if (PRIVATE_RANGES.some((range) => cidrContains(range, address))) return null;
  return `${address} is not a private LAN address: sharing listens only in ${PRIVATE_RANGES.join(', ')}`;
}

export const sharingSettingsSchema = z
  .object({
    enabled: z.boolean(),
    /** The LAN address of this machine the shared proxies listen on ('' until one is picked). */
    address: z.string().trim().max(64),
  })
  .strict()
  .superRefine((sharing, context) => {
    if (sharing.address === '') {
      if (sharing.enabled) context.addIssue({ code: 'custom', path: ['address'], message: 'pick the LAN address to share on', params: { topic: 'sharing-address-needed' } });
      return;
    }
    const problem = sharingAddressProblem(sharing.address);
    if (problem) context.addIssue({ code: 'custom', path: ['address'], message: problem });
  });
export type SharingSettings = z.infer<typeof sharingSettingsSchema>;

/** What the sharing page shows; the credentials are asked for apart (`sharingCredentials`), only on "Show". */
export interface SharingView {
  /** The private addresses this machine has now, to pick from. */
  addresses: { address: string; interface: string }[];
  /** This machine's other addresses (public, carrier-grade NAT, …): shown as not to be shared on, never offered. */
  notPrivate: { address: string; interface: string }[];
  /** The proxies on the LAN while connected with sharing on (null otherwise). */
  listening: { httpProxy: string; socksProxy: string } | null;
  /** Logins refused since the app started (SOCKS5: what the core logs; see app/core/share-inbounds.ts). */
  failedLogins: number;
  lastFailedAt: number | null;
}

export interface SharingCredentials {
  username: string;
  password: string;
}
