/**
 * The region data exactly as `npm run setup` generates it, built straight from the installed
 * @ip-location-db package, so tests need no generated file (a clean checkout has none yet).
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { regionCidrs, dateFromVersion } from '../region-data/build';
import type { RegionDataView } from '../policy/plan';

let cached: RegionDataView | null = null;

export function shippedRegions(): RegionDataView {
  if (cached) return cached;
  const dir = dirname(createRequire(import.meta.url).resolve('@ip-location-db/geo-whois-asn-country/package.json'));
  const { version } = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { version: string };
  cached = {
    date: dateFromVersion(version),
    regions: regionCidrs(readFileSync(join(dir, 'geo-whois-asn-country-ipv4.csv'), 'utf8'), readFileSync(join(dir, 'geo-whois-asn-country-ipv6.csv'), 'utf8'), ['ir', 'ru', 'cn']),
  };
  return cached;
}
