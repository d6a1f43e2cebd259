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
  /** Each rule set of the settings with the copy in force and its last update's outcome. */
  ruleSets?: RuleSetStatus[];
}

/** A rule set's copy in force and how its last update went, for the Routing page. */
export interface RuleSetStatus {
  id: string;
  name: string;
  enabled: boolean;
  /** The copy in force, null before the first good fetch. */
  copy: {
    /** When it was fetched (epoch ms). */
    fetchedAt: number;
    bytes: number;
    /** Names or addresses in the list the set takes. */
    entries: number;
    viaTunnel: boolean;
  } | null;
  /** The last update's failure in words (the copy in force stays), null when it succeeded. */
  lastError: string | null;
  lastAttemptAt: number | null;
  /** Whether the core in force can use it, and if not why (e.g. an `.srs` without sing-box to convert it). */
  unusable: string | null;
}

/** Everything through the server, nothing to say: before the engine has said otherwise. */
export const GLOBAL_ROUTING_VIEW: RoutingView = { preset: 'global', presetInForce: 'global', dataDate: null, dataSource: null, notices: [] };
