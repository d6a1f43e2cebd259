import { capabilitiesFromTable, type CoreProfile } from '../capabilities';
import type { CoreFamily } from '../version';

/**
 * A core profile straight from the capability table, for tests of config generation and of
 * callers (the tunnel, the UI) without a binary of that family on the machine.
 */
export function profileFromTable(family: CoreFamily, version: string, path = `/opt/${family}/${family}`): CoreProfile {
  return { family, version, path, capabilities: capabilitiesFromTable(family, version), verified: { confirmed: [], refuted: [] } };
}
