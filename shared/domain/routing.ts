import type { RegionPreset } from '../routing';

/** What routing is in force, for the top bar and the Routing page. */
export interface RoutingView {
  /** The preset chosen in the settings. */
  preset: RegionPreset;
  /** The preset actually in force: `global` when the chosen region's data is missing. */
  presetInForce: RegionPreset;
  /** The date of the shipped region data (YYYY-MM-DD), null when there is none. */
  dataDate: string | null;
  /** Where the region IP ranges come from ("@ip-location-db/geo-whois-asn-country 2.3.…"). */
  dataSource: string | null;
  /** What differs from what was asked, in words (missing data, what the core cannot do). */
  notices: string[];
}

/** Everything through the server, nothing to say: before the engine has said otherwise. */
export const GLOBAL_ROUTING_VIEW: RoutingView = { preset: 'global', presetInForce: 'global', dataDate: null, dataSource: null, notices: [] };
