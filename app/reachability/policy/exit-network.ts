/**
 * Which network a vantage point's traffic leaves from, so two vantage points on one provider
 * count once (spec/reachability.md: "independent" = different exit networks). Known from the IP
 * info the monitor looked up through each server: the ASN when the service gave one, else the
 * exit address's /24 (IPv4) or /48 (IPv6). Without any IP info the exit network is unknown; the
 * server's own address stands in for it (a /24 of an IPv4 literal, the host name otherwise), so
 * two servers behind one front address still count once.
 */
import type { IpInfo } from '../../../shared/domain/measurement';

export interface ExitNetwork {
  /** Equal keys = the same network. */
  key: string;
  kind: 'asn' | 'prefix' | 'unknown';
  /** For reasons: "AS14061 DigitalOcean, NL", "exit 203.0.113.0/24, DE", "exit network unknown". */
  label: string;
  asn: string | null;
  exitIp: string | null;
  countryCode: string | null;
}

/** "AS14061", "as14061 DigitalOcean", "14061" → "AS14061"; anything else → null. */
export function normaliseAsn(asn: string | number | undefined | null): string | null {
  if (asn === undefined || asn === null) return null;
  const match = /^\s*(?:AS)?\s*(\d{1,10})\b/i.exec(String(asn));
  if (!match || Number(match[1]) === 0) return null;
  return `AS${Number(match[1])}`;
}

/**
 * Prefixes already worked out, by address: every window's view asks again for each of its
 * servers' addresses (5,000 regular expressions and joins, about 17 ms), and a list has few
 * distinct addresses. Emptied when it grows past PREFIX_MEMO_LIMIT, so it stays small.
 */
const prefixMemo = new Map<string, string | null>();
const PREFIX_MEMO_LIMIT = 20_000;

/** "a.b.c.0/24" for IPv4, the first 48 bits for IPv6, null for anything else. */
export function addressPrefix(ip: string): string | null {
  const known = prefixMemo.get(ip);
  if (known !== undefined) return known;
  const prefix = prefixOf(ip);
  if (prefixMemo.size >= PREFIX_MEMO_LIMIT) prefixMemo.clear();
  prefixMemo.set(ip, prefix);
  return prefix;
}

function prefixOf(ip: string): string | null {
  const v4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(ip.trim());
  if (v4) {
    const parts = v4.slice(1, 5).map(Number);
    if (parts.some((p) => p > 255)) return null;
    return `${parts[0]}.${parts[1]}.${parts[2]}.0/24`;
  }
  const bare = ip.trim().replace(/^\[|\]$/g, '');
  if (!bare.includes(':') || !/^[0-9a-f:]+$/i.test(bare)) return null;
  const [head = '', tail = ''] = bare.split('::');
  const headGroups = head ? head.split(':') : [];
  const tailGroups = tail ? tail.split(':') : [];
  const missing = bare.includes('::') ? 8 - headGroups.length - tailGroups.length : 0;
  const groups = [...headGroups, ...Array<string>(Math.max(0, missing)).fill('0'), ...tailGroups];
  if (groups.length !== 8) return null;
  return `${groups.slice(0, 3).map((g) => Number.parseInt(g, 16).toString(16)).join(':')}::/48`;
}

export function exitNetworkOf(ipInfo: IpInfo | null | undefined, serverAddress: string): ExitNetwork {
  const country = ipInfo?.countryCode ?? null;
  const place = country ? `, ${country}` : '';
  const asn = normaliseAsn(ipInfo?.asn);
  if (ipInfo && asn) {
    const org = ipInfo.org ? ` ${ipInfo.org.replace(/^AS\d+\s+/i, '')}` : '';
    return { key: asn, kind: 'asn', label: `${asn}${org}${place}`, asn, exitIp: ipInfo.ip, countryCode: country };
  }
  const prefix = ipInfo ? addressPrefix(ipInfo.ip) : null;
  if (ipInfo && prefix) {
    return { key: `net:${prefix}`, kind: 'prefix', label: `exit ${prefix}${place}`, asn: null, exitIp: ipInfo.ip, countryCode: country };
  }
  const front = addressPrefix(serverAddress) ?? serverAddress.trim().toLowerCase();
  return { key: `front:${front}`, kind: 'unknown', label: 'exit network unknown', asn: null, exitIp: ipInfo?.ip ?? null, countryCode: country };
}
