/**
 * Import requests (a panel's "add to app" link, a QR code) waiting for the user's answer. The host
 * owns the list, as it owns the problems: it comes whole in the snapshot and in each
 * `importRequests` event, and an answered request leaves when the host's next list drops it.
 */
import type { ImportRequest } from '../../../shared/domain/import-request';
import type { ListSubscription } from '../../../shared/ipc/contract';
import { type SliceDeps } from './types';
import { type ActionResult, request } from './request';

export interface ImportsSlice {
  importRequests: ImportRequest[];
  setImportRequests(requests: ImportRequest[]): void;
  /**
   * Text found in a picture, or pasted into the import box (with the name and User-Agent the user
   * gave): the host turns it into a request the user then confirms.
   */
  offerImport(text: string, from?: { source: 'paste'; name?: string; userAgent?: string }): Promise<ActionResult<ImportRequest>>;
  /**
   * Add what the request proposes (the host fetches it only now), or drop it; `keep` adds a
   * subscription even when its fetch fails, to be retried later.
   */
  answerImport(id: string, accept: boolean, keep?: boolean): Promise<ActionResult<ListSubscription | null>>;
  /** One picture per screen, taken by the desktop app after the user agreed. */
  captureScreen(): Promise<ActionResult<{ screens: string[] }>>;
  /** A server's share link or a subscription's address: asked for only when the user chooses to see it. */
  shareLink(target: { serverId: string } | { subscriptionId: string }): Promise<ActionResult<{ link: string | null }>>;
}

export const importsInitialState: Pick<ImportsSlice, 'importRequests'> = { importRequests: [] };

export function createImportsSlice(deps: SliceDeps): ImportsSlice {
  const { set, client } = deps;
  return {
    ...importsInitialState,
    setImportRequests: (importRequests) => set({ importRequests }),
    offerImport: (text, from) => request(deps, 'import', () => client.offerImport({ text, source: 'qr', ...from }), { notify: false }),
    answerImport: (id, accept, keep = false) => request(deps, 'import', () => client.answerImport({ id, accept, ...(keep ? { keep } : {}) }), { notify: false }),
    captureScreen: () => request(deps, 'import', () => client.captureScreen({}), { notify: false }),
    shareLink: (target) => request(deps, 'import', () => client.shareLink(target), { notify: false }),
  };
}
