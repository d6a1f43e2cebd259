/** The app picker asks the host for the installed and running programs when its page opens. */
import type { AppListing } from '../../../shared/per-app';
import { type ActionResult, request, type SliceDeps } from './types';

export interface AppsSlice {
  listApps(entries: string[]): Promise<ActionResult<AppListing>>;
}

export function createAppsSlice(deps: SliceDeps): AppsSlice {
  return { listApps: (entries) => request(deps, 'settings', () => deps.client.listApps({ entries }), { notify: false }) };
}
