/**
 * A subscription's declaration of a server's IPv6 support (spec/monitor.md, ipv6_declared): a
 * share link's `ipv6=1` / `ipv6=0`, the same field in a vmess JSON payload, or a sing-box
 * config's `experimental.monitoring.ipv6_declared` map (tag → bool). A declared server is not
 * verified: the declaration is known from the start.
 */

/** true / false for a declaration the parser understands, null for a value it does not. */
export function ipv6Declaration(raw: unknown): boolean | null {
  if (raw === true || raw === 1) return true;
  if (raw === false || raw === 0) return false;
  if (typeof raw !== 'string') return null;
  const value = raw.trim().toLowerCase();
  if (value === '1' || value === 'true' || value === 'yes' || value === 'on') return true;
  if (value === '0' || value === 'false' || value === 'no' || value === 'off') return false;
  return null;
}

/** The note for a value that declares nothing (the server is then verified like any other). */
export function unreadIpv6Note(raw: unknown): string {
  const shown = typeof raw === 'string' ? `"${raw.slice(0, 20)}"` : typeof raw;
  return `ipv6=${shown} is neither 1 nor 0: IPv6 support not declared`;
}
