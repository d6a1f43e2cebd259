import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { REGION_DATA_FILE, type RegionDataFile, regionDataFileSchema } from './format';

export type RegionDataLoad = { data: RegionDataFile } | { problem: string };

/** Where the shipped data lives under the app's resources folder. */
export function regionDataPath(resourcesDir: string): string {
  return join(resourcesDir, 'routing', REGION_DATA_FILE);
}

/**
 * The region presets' IP ranges as shipped. A missing or unreadable file is a problem in words,
 * never an exception: the presets then fall back to global and the core starts anyway.
 */
export async function loadRegionData(resourcesDir: string | undefined): Promise<RegionDataLoad> {
  if (!resourcesDir) return { problem: 'no resources folder is known, so the region IP ranges are unavailable' };
  const path = regionDataPath(resourcesDir);
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return { problem: `the region IP ranges are missing (${path}: ${code ?? String(error)}); run \`npm run setup\` to generate them` };
  }
  try {
    return { data: regionDataFileSchema.parse(JSON.parse(text)) };
  } catch {
    return { problem: `the region IP ranges in ${path} are unreadable; run \`npm run setup\` to generate them again` };
  }
}
