/** The app picker asks the host for the installed and running programs when its page opens. */
import type { AppListing } from '../../../shared/per-app';
import { type SliceDeps } from './types';
import { type ActionResult, request } from './request';

export interface AppsSlice {
  listApps(entries: string[]): Promise<ActionResult<AppListing>>;
}

export function createAppsSlice(deps: SliceDeps): AppsSlice {
  return { listApps: (entries) => request(deps, 'settings', () => deps.client.listApps({ entries }), { notify: false }) };
}
