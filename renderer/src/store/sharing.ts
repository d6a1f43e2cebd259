/**
 * Household sharing's page asks the host itself: the view (addresses, where it listens, refused
 * logins) while the page is open, and the credentials only when the user chooses to see them.
 */
import type { SharingCredentials, SharingView } from '../../../shared/sharing';
import { type SliceDeps } from './types';
import { type ActionResult, request } from './request';

export interface SharingSlice {
  getSharing(): Promise<ActionResult<SharingView>>;
  sharingCredentials(): Promise<ActionResult<SharingCredentials>>;
}

export function createSharingSlice(deps: SliceDeps): SharingSlice {
  const { client } = deps;
  return {
    getSharing: () => request(deps, 'settings', () => client.getSharing({}), { notify: false }),
    sharingCredentials: () => request(deps, 'settings', () => client.sharingCredentials({}), { notify: false }),
  };
}
