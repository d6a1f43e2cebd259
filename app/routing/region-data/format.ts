import { z } from 'zod';

/** One region's blocks as the core's `ip` rules take them ("5.22.0.0/17", "2a01:5ec0::/29"). */
export interface RegionCidrs {
  ipv4: string[];
  ipv6: string[];
}

/** The file `npm run setup` / `npm run build` write to resources/routing/regions.json. */
export const regionDataFileSchema = z.object({
  format: z.literal(1),
  /** The registry package the ranges came from, and its version. */
  source: z.string(),
  version: z.string(),
  /** When the package's data was built (YYYY-MM-DD), shown in the UI. */
  date: z.string().nullable(),
  licence: z.string(),
  attribution: z.string(),
  regions: z.record(z.string(), z.object({ ipv4: z.array(z.string()), ipv6: z.array(z.string()) })),
});
export type RegionDataFile = z.infer<typeof regionDataFileSchema>;

export const REGION_DATA_FILE = 'regions.json';
