import { capabilitiesFromTable, type CoreProfile } from '../capabilities';
import type { CoreFamily } from '../version';

/**
 * A core profile straight from the capability table, for tests of config generation and of
 * callers (the tunnel, the UI) without a binary of that family on the machine.
 */
export function profileFromTable(family: CoreFamily, version: string, path = `/opt/${family}/${family}`, buildTags?: string[]): CoreProfile {
  return {
    family,
    version,
    path,
    capabilities: capabilitiesFromTable(family, version, buildTags ?? null),
    verified: { confirmed: [], refuted: [] },
    ...(buildTags ? { buildTags } : {}),
  };
}

/** The tags of the sing-box 1.14.1 built here (no WireGuard, no Naive: their modules are not served). */
export const SING_BOX_HERE_TAGS = ['with_gvisor', 'with_quic', 'with_dhcp', 'with_utls', 'with_acme', 'with_clash_api', 'with_ccm', 'with_ocm', 'with_cloudflared', 'with_usbip', 'with_openvpn', 'badlinkname', 'tfogo_checklinkname0'];
