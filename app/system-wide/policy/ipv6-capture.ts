/**
 * Whether system-wide mode captures IPv6 for a server or blocks it, from what is known of the
 * server's IPv6 (its subscription's declaration, or the monitor's verification: status.ipv6).
 * Only a server known to carry IPv6 gets it: one that refuses it, or of which nothing is known
 * yet, would take a program's IPv6 connection and then fail it slowly (or not at all, leaving the
 * program waiting), so its IPv6 is refused at once and the program falls back to IPv4, which goes
 * through the tunnel. Never is IPv6 left to go around the tunnel.
 */
import type { Ipv6Capture } from '../../core/transparent';

/** What is known of the server's IPv6: true carries it, false refuses it, null unknown. */
export interface KnownIpv6 {
  supported: boolean | null;
  /** Where it comes from, for the log: `declared` (subscription) or `verified` (monitor). */
  source?: 'declared' | 'verified';
}

export interface Ipv6Decision {
  ipv6: Ipv6Capture;
  /** Why, in words for the log and the CLI. */
  why: string;
}

export function ipv6CaptureFor(known: KnownIpv6 | null): Ipv6Decision {
  const by = known?.source === 'declared' ? 'its subscription declares' : 'the monitor found';
  if (known?.supported === true) return { ipv6: 'capture', why: `IPv6 captured: ${by} the server carries it` };
  if (known?.supported === false) return { ipv6: 'block', why: `IPv6 blocked (refused at once, programs fall back to IPv4): ${by} the server does not carry it` };
  return { ipv6: 'block', why: 'IPv6 blocked (refused at once, programs fall back to IPv4): the server is not known to carry it' };
}
