import type { SettingsPatch } from '../../shared/settings';
import type { LabInfo } from './types';

/**
 * The routing an app needs in the lab. The lab's whole world is on loopback, which `bypassLan`
 * would send past the servers, so it is off; both resolvers are the lab's, so no name is ever
 * sent to a real resolver. Everything else keeps the user's defaults.
 */
export function labRouting(info: Pick<LabInfo, 'resolver'>): Pick<SettingsPatch, 'routing' | 'dns'> {
  return { routing: { bypassLan: false }, dns: { remote: info.resolver, domestic: info.resolver } };
}
