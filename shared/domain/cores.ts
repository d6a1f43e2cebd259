import type { ServerId } from './server';

/** The core programs this app knows by name. */
export type CoreName = 'xray' | 'v2ray' | 'sing-box';

/** Where a core was found: the path set in Settings (or `--core`), the app's own bundle, or PATH. */
export type CoreWhere = 'setting' | 'bundled' | 'path';

/**
 * What a core does here: `main` runs the tunnel and carries every server it can; a `carrier`
 * (sing-box) carries the servers the main core cannot; `available` is found but not in use (v2ray
 * beside a bundled Xray): choosing it in Settings makes it the main core.
 */
export type CoreRole = 'main' | 'carrier' | 'available';

/** What a core can run, as its version's table says and its own config test confirmed or refuted. */
export interface CoreAbilities {
  protocols: string[];
  transports: string[];
  securities: string[];
  features: string[];
  shadowsocksMethods: string[];
  /** Checks the binary passed (each a tiny config given to its config test): `protocol:vless`, `feature:freedom-fragment`, … */
  confirmed: string[];
  /** Checks the binary failed: the table claimed them, the binary does not have them. */
  refuted: string[];
}

export interface CoreEntry {
  /** The core's name; for a program that could not be identified, its file name. */
  name: CoreName | string;
  /** Null when the program could not be identified (then `problem` says why). */
  version: string | null;
  path: string;
  source: CoreWhere;
  role: CoreRole;
  abilities: CoreAbilities | null;
  /** Why this program cannot be used, in words; null when it can. */
  problem: string | null;
  /** How many of the user's servers this core carries (0 for an available core). */
  carries: number;
}

/** Which core carries one server, or why none can: each carrying core's reason, main core first. */
export interface ServerCarrier {
  serverId: ServerId;
  name: string;
  protocol: string;
  /** The core that carries it; null when none of the cores in use can. */
  core: CoreName | null;
  /** For each core in use that cannot carry it, the reason ("not supported by v2ray 4.34.0: …"). */
  reasons: Partial<Record<CoreName, string>>;
}

/** Every core found on this machine and what each does with the user's servers. */
export interface CoreList {
  /** The main core's name, or null when none was found (then `problem` says why). */
  main: CoreName | null;
  /** Why there is no main core; null when there is one. */
  problem: string | null;
  /** The main core first, then the carriers, then the available ones. */
  cores: CoreEntry[];
  /** How many servers the cores in use were asked about. */
  serverCount: number;
  /** How many of them no core in use can carry. */
  uncarried: number;
}
