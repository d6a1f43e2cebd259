/**
 * Writes resources/routing/regions.json: the IP ranges of every region preset, taken from the
 * @ip-location-db/geo-whois-asn-country package (its CSVs, updated daily upstream). Run by
 * `npm run setup` and `npm run build`; a newer package version gives newer data with no code
 * change. Quiet when the file already matches the installed package version.
 */
import { mkdir, readFile, writeFile, rename } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { REGION_PRESETS } from '../shared/routing';
import { dateFromVersion, regionCidrs } from '../app/routing/region-data/build';
import { type RegionDataFile, regionDataFileSchema } from '../app/routing/region-data/format';
import { regionDataPath } from '../app/routing/region-data/load';

const PACKAGE = '@ip-location-db/geo-whois-asn-country';
const root = join(dirname(fileURLToPath(import.meta.url)), '..');

async function main(): Promise<void> {
  const require = createRequire(import.meta.url);
  const packageDir = dirname(require.resolve(`${PACKAGE}/package.json`));
  const { version, license } = JSON.parse(await readFile(join(packageDir, 'package.json'), 'utf8')) as { version: string; license: string };
  const out = regionDataPath(join(root, 'resources'));
  const force = process.argv.includes('--force');
  const existing = await readFile(out, 'utf8').then((t) => regionDataFileSchema.safeParse(JSON.parse(t)), () => null);
  if (!force && existing?.success && existing.data.version === version) {
    console.log(`region data: up to date (${PACKAGE} ${version})`);
    return;
  }
  const [ipv4, ipv6] = await Promise.all([
    readFile(join(packageDir, 'geo-whois-asn-country-ipv4.csv'), 'utf8'),
    readFile(join(packageDir, 'geo-whois-asn-country-ipv6.csv'), 'utf8'),
  ]);
  const countries = REGION_PRESETS.filter((p) => p !== 'global');
  const file: RegionDataFile = {
    format: 1,
    source: PACKAGE,
    version,
    date: dateFromVersion(version),
    licence: license,
    attribution: 'ip-location-db (sapics), built from RIR whois data (NRO, CC BY 4.0), GeoFeed and ASN data',
    regions: regionCidrs(ipv4, ipv6, countries),
  };
  await mkdir(dirname(out), { recursive: true });
  await writeFile(`${out}.tmp`, `${JSON.stringify(file)}\n`);
  await rename(`${out}.tmp`, out);
  const counts = countries.map((c) => `${c} ${file.regions[c]?.ipv4.length ?? 0}+${file.regions[c]?.ipv6.length ?? 0}`).join(', ');
  console.log(`region data: wrote ${out} from ${PACKAGE} ${version} (${counts} blocks)`);
}

main().catch((error: unknown) => {
  console.error(`region data: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
});
