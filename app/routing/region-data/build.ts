/**
 * The region presets' IP ranges, taken from an IP-to-country CSV (`start,end,CC` per line,
 * inclusive ranges, as @ip-location-db publishes them) and reduced to CIDR blocks the core's `ip`
 * rules take inline. Pure: the caller reads the files and writes the result.
 */
import { type AddressRange, formatIpv4, formatIpv6, mergeRanges, parseIpv4, parseIpv6, rangeToCidrs } from '../../../shared/cidr';
import type { RegionCidrs } from './format';

/** Ranges per wanted country code (upper case), from one CSV's text. */
export function rangesByCountry(csv: string, countries: readonly string[], family: 4 | 6): Map<string, AddressRange[]> {
  const wanted = new Set(countries.map((c) => c.toUpperCase()));
  const out = new Map<string, AddressRange[]>([...wanted].map((c) => [c, []]));
  const parse = family === 4 ? parseIpv4 : parseIpv6;
  for (const line of csv.split('\n')) {
    const comma = line.lastIndexOf(',');
    if (comma < 0) continue;
    const country = line.slice(comma + 1).trim().toUpperCase();
    const list = out.get(country);
    if (!list) continue;
    const [startText, endText] = line.slice(0, comma).split(',');
    const start = startText === undefined ? null : parse(startText.trim());
    const end = endText === undefined ? null : parse(endText.trim());
    if (start === null || end === null || end < start) continue;
    list.push({ start, end });
  }
  return out;
}

export function cidrsOf(ranges: readonly AddressRange[], family: 4 | 6): string[] {
  const bits = family === 4 ? 32 : 128;
  const format = family === 4 ? formatIpv4 : formatIpv6;
  return mergeRanges(ranges).flatMap((range) => rangeToCidrs(range, bits).map(([network, prefix]) => `${format(network)}/${prefix}`));
}

/** Every wanted country's IPv4 and IPv6 blocks from the two CSVs. */
export function regionCidrs(ipv4Csv: string, ipv6Csv: string, countries: readonly string[]): Record<string, RegionCidrs> {
  const v4 = rangesByCountry(ipv4Csv, countries, 4);
  const v6 = rangesByCountry(ipv6Csv, countries, 6);
  return Object.fromEntries(
    countries.map((c) => {
      const code = c.toUpperCase();
      return [c.toLowerCase(), { ipv4: cidrsOf(v4.get(code) ?? [], 4), ipv6: cidrsOf(v6.get(code) ?? [], 6) }];
    }),
  );
}

/**
 * The data's date from the package version: @ip-location-db versions end in the build's
 * YYYYMMDDHH ("2.3.2026061719" was built on 2026-06-17).
 */
export function dateFromVersion(version: string): string | null {
  const match = /(\d{4})(\d{2})(\d{2})\d{2}$/.exec(version);
  return match ? `${match[1]}-${match[2]}-${match[3]}` : null;
}
