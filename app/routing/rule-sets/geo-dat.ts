/**
 * Reading one list out of Xray/v2ray's `geosite.dat` / `geoip.dat` (protobuf `GeoSiteList` /
 * `GeoIPList` of `app/router/routercommon/common.proto`). Pure. Only the wanted list is decoded:
 * the others are skipped by their length, so a 70 MB file costs one pass and the list's entries.
 *
 *     GeoSiteList { repeated GeoSite entry = 1 }   GeoSite { string country_code = 1; repeated Domain domain = 2 }
 *     Domain { Type type = 1; string value = 2; repeated Attribute attribute = 3 }   Type: Plain 0, Regex 1, Domain 2, Full 3
 *     GeoIPList { repeated GeoIP entry = 1 }       GeoIP { string country_code = 1; repeated CIDR cidr = 2; bool reverse_match = 3 }
 *     CIDR { bytes ip = 1; uint32 prefix = 2 }
 */
import type { RuleSetContent } from './content';

/** A geosite domain's type as the core's domain syntax writes it (Plain is a substring match). */
const DOMAIN_PREFIX: Record<number, string> = { 0: 'keyword:', 1: 'regexp:', 2: 'domain:', 3: 'full:' };

export type DatRead = { ok: true; content: RuleSetContent } | { ok: false; problem: string };

class Truncated extends Error {}

/** A protobuf field: its number, wire type and where its value lies. */
interface Field {
  number: number;
  wire: number;
  /** For varints, the value; otherwise unused. */
  varint: number;
  start: number;
  end: number;
}

function readVarint(buf: Uint8Array, at: number): { value: number; next: number } {
  let value = 0;
  let scale = 1;
  for (let i = at; i < buf.length && i < at + 10; i++) {
    const byte = buf[i] as number;
    value += (byte & 0x7f) * scale;
    scale *= 128;
    if ((byte & 0x80) === 0) return { value, next: i + 1 };
  }
  throw new Truncated(`a number at byte ${at} runs past the end`);
}

/** The fields of the message in buf[start, end). */
function* fields(buf: Uint8Array, start: number, end: number): Generator<Field> {
  let at = start;
  while (at < end) {
    const key = readVarint(buf, at);
    const number = Math.floor(key.value / 8);
    const wire = key.value % 8;
    at = key.next;
    if (number === 0) throw new Truncated(`field number 0 at byte ${at}`);
    if (wire === 0) {
      const v = readVarint(buf, at);
      yield { number, wire, varint: v.value, start: at, end: v.next };
      at = v.next;
    } else if (wire === 2) {
      const length = readVarint(buf, at);
      const from = length.next;
      const to = from + length.value;
      if (to > end) throw new Truncated(`a record at byte ${from} claims ${length.value} bytes, past the end`);
      yield { number, wire, varint: 0, start: from, end: to };
      at = to;
    } else if (wire === 5 || wire === 1) {
      const to = at + (wire === 5 ? 4 : 8);
      if (to > end) throw new Truncated(`a fixed-size value at byte ${at} runs past the end`);
      yield { number, wire, varint: 0, start: at, end: to };
      at = to;
    } else {
      throw new Truncated(`wire type ${wire} at byte ${at} is not one a list file uses`);
    }
  }
}

const decoder = new TextDecoder('utf-8', { fatal: false });
const text = (buf: Uint8Array, f: Field) => decoder.decode(buf.subarray(f.start, f.end));

/** The country code (list name) of an entry, read before anything else of it. */
function entryName(buf: Uint8Array, entry: Field): string {
  for (const f of fields(buf, entry.start, entry.end)) if (f.number === 1 && f.wire === 2) return text(buf, f);
  return '';
}

/** What a file that is not a list file looks like, in words. */
function notAListFile(buf: Uint8Array, kind: string, why: string): string {
  const head = decoder.decode(buf.subarray(0, 64)).trimStart();
  if (buf.length === 0) return `the file is empty, not a ${kind}`;
  if (head.startsWith('<')) return `the file is a web page, not a ${kind}`;
  if (head.startsWith('{')) return `the file is JSON, not a ${kind}`;
  return `the file is not a ${kind} (${why})`;
}

function findList(buf: Uint8Array, list: string, kind: string): { entry: Field } | { problem: string } {
  const wanted = list.toLowerCase();
  const names: string[] = [];
  try {
    for (const entry of fields(buf, 0, buf.length)) {
      if (entry.number !== 1 || entry.wire !== 2) return { problem: notAListFile(buf, kind, `field ${entry.number} at the top level`) };
      const name = entryName(buf, entry);
      if (name.toLowerCase() === wanted) return { entry };
      names.push(name.toLowerCase());
    }
  } catch (error) {
    if (error instanceof Truncated) return { problem: notAListFile(buf, kind, error.message) };
    throw error;
  }
  if (names.length === 0) return { problem: notAListFile(buf, kind, 'it holds no lists') };
  const shown = names.slice(0, 12).join(', ');
  return { problem: `the ${kind} has no list "${list}" (it has ${names.length}: ${shown}${names.length > 12 ? ', …' : ''})` };
}

/** The names of one list of a `geosite.dat`, in the core's domain syntax. */
export function readGeositeList(buf: Uint8Array, list: string): DatRead {
  const found = findList(buf, list, 'geosite.dat file');
  if ('problem' in found) return { ok: false, problem: found.problem };
  const domains: string[] = [];
  try {
    for (const f of fields(buf, found.entry.start, found.entry.end)) {
      if (f.number !== 2 || f.wire !== 2) continue;
      let type = 0;
      let value = '';
      for (const d of fields(buf, f.start, f.end)) {
        if (d.number === 1 && d.wire === 0) type = d.varint;
        else if (d.number === 2 && d.wire === 2) value = text(buf, d);
      }
      const prefix = DOMAIN_PREFIX[type];
      if (!prefix) return { ok: false, problem: `list "${list}" has a name of unknown type ${type} ("${value.slice(0, 60)}")` };
      if (value) domains.push(`${prefix}${value}`);
    }
  } catch (error) {
    if (error instanceof Truncated) return { ok: false, problem: `list "${list}" is cut short (${error.message})` };
    throw error;
  }
  return { ok: true, content: { domains, cidrs: [] } };
}

/** The address blocks of one list of a `geoip.dat`, as CIDR text. */
export function readGeoipList(buf: Uint8Array, list: string): DatRead {
  const found = findList(buf, list, 'geoip.dat file');
  if ('problem' in found) return { ok: false, problem: found.problem };
  const cidrs: string[] = [];
  try {
    for (const f of fields(buf, found.entry.start, found.entry.end)) {
      if (f.number === 3 && f.wire === 0 && f.varint !== 0) {
        return { ok: false, problem: `list "${list}" matches every address outside it (reverse_match), which cannot be written as address rules` };
      }
      if (f.number !== 2 || f.wire !== 2) continue;
      let ip: Uint8Array | null = null;
      let prefix = -1;
      for (const c of fields(buf, f.start, f.end)) {
        if (c.number === 1 && c.wire === 2) ip = buf.subarray(c.start, c.end);
        else if (c.number === 2 && c.wire === 0) prefix = c.varint;
      }
      const block = ip ? cidrText(ip, prefix < 0 ? ip.length * 8 : prefix) : null;
      if (!block) return { ok: false, problem: `list "${list}" has an address block that is neither IPv4 nor IPv6` };
      cidrs.push(block);
    }
  } catch (error) {
    if (error instanceof Truncated) return { ok: false, problem: `list "${list}" is cut short (${error.message})` };
    throw error;
  }
  return { ok: true, content: { domains: [], cidrs } };
}

/** 4 or 16 address bytes and a prefix length as `1.2.3.0/24` / `2001:db8::/32`; null when invalid. */
export function cidrText(ip: Uint8Array, prefix: number): string | null {
  if (ip.length === 4 && prefix >= 0 && prefix <= 32) return `${Array.from(ip).join('.')}/${prefix}`;
  if (ip.length !== 16 || prefix < 0 || prefix > 128) return null;
  const groups: number[] = [];
  for (let i = 0; i < 16; i += 2) groups.push(((ip[i] as number) << 8) | (ip[i + 1] as number));
  // The longest run of two or more zero groups becomes "::" (RFC 5952).
  let best = { at: -1, length: 0 };
  for (let i = 0; i < 8; ) {
    if (groups[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > best.length && j - i >= 2) best = { at: i, length: j - i };
    i = j;
  }
  const hex = groups.map((g) => g.toString(16));
  const address =
    best.at < 0 ? hex.join(':') : `${hex.slice(0, best.at).join(':')}::${hex.slice(best.at + best.length).join(':')}`;
  return `${address}/${prefix}`;
}
