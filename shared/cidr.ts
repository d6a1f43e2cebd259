/**
 * Inclusive address ranges (as the IP-to-country CSVs give them) turned into the fewest CIDR
 * blocks that cover them exactly, for IPv4 and IPv6 alike (BigInt arithmetic, `bits` = 32 | 128).
 */

export interface AddressRange {
  start: bigint;
  end: bigint;
}

export function parseIpv4(text: string): bigint | null {
  const parts = text.split('.');
  if (parts.length !== 4) return null;
  let value = 0n;
  for (const part of parts) {
    if (!/^\d{1,3}$/.test(part)) return null;
    const n = Number(part);
    if (n > 255) return null;
    value = (value << 8n) | BigInt(n);
  }
  return value;
}

export function parseIpv6(text: string): bigint | null {
  if (!/^[0-9a-fA-F:.]+$/.test(text) || text.split('::').length > 2) return null;
  const [head, tail] = text.includes('::') ? (text.split('::') as [string, string]) : [text, null];
  const groups = (part: string): number[] | null => {
    if (part === '') return [];
    const out: number[] = [];
    const pieces = part.split(':');
    for (const [i, piece] of pieces.entries()) {
      if (i === pieces.length - 1 && piece.includes('.')) {
        const v4 = parseIpv4(piece);
        if (v4 === null) return null;
        out.push(Number(v4 >> 16n), Number(v4 & 0xffffn));
      } else {
        if (!/^[0-9a-fA-F]{1,4}$/.test(piece)) return null;
        out.push(parseInt(piece, 16));
      }
    }
    return out;
  };
  const first = groups(head);
  const last = tail === null ? [] : groups(tail);
  if (!first || !last) return null;
  const missing = 8 - first.length - last.length;
  if (tail === null ? missing !== 0 : missing < 1) return null;
  const all = [...first, ...new Array<number>(missing).fill(0), ...last];
  return all.reduce((value, group) => (value << 16n) | BigInt(group), 0n);
}

export function formatIpv4(value: bigint): string {
  return [24n, 16n, 8n, 0n].map((shift) => String((value >> shift) & 0xffn)).join('.');
}

/** Lower-case, zero runs compressed (RFC 5952). */
export function formatIpv6(value: bigint): string {
  const groups = Array.from({ length: 8 }, (_, i) => Number((value >> BigInt(112 - 16 * i)) & 0xffffn));
  let bestStart = -1;
  let bestLength = 1;
  for (let i = 0; i < 8; ) {
    if (groups[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > bestLength) {
      bestStart = i;
      bestLength = j - i;
    }
    i = j;
  }
  const hex = groups.map((g) => g.toString(16));
  if (bestStart < 0) return hex.join(':');
  return `${hex.slice(0, bestStart).join(':')}::${hex.slice(bestStart + bestLength).join(':')}`;
}

/** Sorted, with touching or overlapping ranges joined. */
export function mergeRanges(ranges: readonly AddressRange[]): AddressRange[] {
  const sorted = [...ranges].sort((a, b) => (a.start < b.start ? -1 : a.start > b.start ? 1 : 0));
  const out: AddressRange[] = [];
  for (const range of sorted) {
    const last = out[out.length - 1];
    if (last && range.start <= last.end + 1n) {
      if (range.end > last.end) last.end = range.end;
    } else {
      out.push({ start: range.start, end: range.end });
    }
  }
  return out;
}

/** The CIDR blocks (`[network, prefixLength]`) that exactly cover one inclusive range. */
export function rangeToCidrs(range: AddressRange, bits: 32 | 128): [bigint, number][] {
  const out: [bigint, number][] = [];
  let start = range.start;
  const width = BigInt(bits);
  while (start <= range.end) {
    // The largest block aligned at `start` that does not pass the end.
    let size = start === 0n ? width : trailingZeros(start, bits);
    while (size > 0n && start + (1n << size) - 1n > range.end) size--;
    out.push([start, bits - Number(size)]);
    start += 1n << size;
  }
  return out;
}

function trailingZeros(value: bigint, bits: number): bigint {
  let n = 0n;
  while (n < BigInt(bits) && ((value >> n) & 1n) === 0n) n++;
  return n;
}

/** Whether `address` lies in `cidr` ("1.2.3.0/24", "2001:db8::/32"); false for a mismatched family. */
export function cidrContains(cidr: string, address: string): boolean {
  const [network, prefixText] = cidr.split('/') as [string, string | undefined];
  const v6 = network.includes(':');
  if (v6 !== address.includes(':')) return false;
  const bits = v6 ? 128 : 32;
  const parse = v6 ? parseIpv6 : parseIpv4;
  const base = parse(network);
  const value = parse(address);
  if (base === null || value === null) return false;
  const prefix = prefixText === undefined ? bits : Number(prefixText);
  const shift = BigInt(bits - prefix);
  return base >> shift === value >> shift;
}
