/**
 * Writes small `geosite.dat` / `geoip.dat` files for tests with protobufjs, from the schema of
 * Xray's `app/router/routercommon/common.proto`: a writer that is not the app's reader, so the
 * reader is checked against the format and not against itself.
 */
import { parse } from 'protobufjs';

const SCHEMA = `
syntax = "proto3";
message Domain {
  enum Type { Plain = 0; Regex = 1; Domain = 2; Full = 3; }
  message Attribute { string key = 1; oneof typed_value { bool bool_value = 2; int64 int_value = 3; } }
  Type type = 1;
  string value = 2;
  repeated Attribute attribute = 3;
}
message GeoSite { string country_code = 1; repeated Domain domain = 2; }
message GeoSiteList { repeated GeoSite entry = 1; }
message CIDR { bytes ip = 1; uint32 prefix = 2; }
message GeoIP { string country_code = 1; repeated CIDR cidr = 2; bool reverse_match = 3; }
message GeoIPList { repeated GeoIP entry = 1; }
`;

const root = parse(SCHEMA).root;
const TYPES = { plain: 0, regex: 1, domain: 2, full: 3 } as const;

export type GeoDomain = { type: keyof typeof TYPES; value: string; attributes?: string[] };

/** `{ LABSET: [{ type: 'domain', value: 'inset.lab.test' }] }` → the bytes of a geosite.dat. */
export function geositeDat(lists: Record<string, GeoDomain[]>): Buffer {
  const type = root.lookupType('GeoSiteList');
  const message = type.create({
    entry: Object.entries(lists).map(([countryCode, domains]) => ({
      countryCode,
      domain: domains.map((d) => ({ type: TYPES[d.type], value: d.value, attribute: (d.attributes ?? []).map((key) => ({ key, boolValue: true })) })),
    })),
  });
  return Buffer.from(type.encode(message).finish());
}

/** `{ LAB: ['127.0.0.0/24', '2001:db8::/32'] }` → the bytes of a geoip.dat. */
export function geoipDat(lists: Record<string, string[]>, reverse: string[] = []): Buffer {
  const type = root.lookupType('GeoIPList');
  const message = type.create({
    entry: Object.entries(lists).map(([countryCode, cidrs]) => ({
      countryCode,
      reverseMatch: reverse.includes(countryCode),
      cidr: cidrs.map((block) => {
        const [address, prefix] = block.split('/') as [string, string];
        return { ip: addressBytes(address), prefix: Number(prefix) };
      }),
    })),
  });
  return Buffer.from(type.encode(message).finish());
}

function addressBytes(address: string): Buffer {
  if (!address.includes(':')) return Buffer.from(address.split('.').map(Number));
  const [head, tail] = address.includes('::') ? address.split('::') : [address, undefined];
  const groups = (part: string | undefined) => (part ? part.split(':').map((g) => parseInt(g, 16)) : []);
  const left = groups(head);
  const right = groups(tail);
  const all = [...left, ...Array(8 - left.length - right.length).fill(0), ...right];
  return Buffer.from(all.flatMap((g) => [g >> 8, g & 0xff]));
}
