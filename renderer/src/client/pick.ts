import type { VpnClient } from '../../../shared/ipc/contract';
import { electronClient } from './electron';
import { hostSocketUrl, takeToken } from './token';
import { createWebSocketClient, type LinkState } from './websocket';

export interface PickedClient {
  client: VpnClient;
  /** How the page is linked to its host (always "open" under Electron, where IPC cannot drop). */
  onLink(listener: (state: LinkState) => void): () => void;
  link(): LinkState;
}

/** The page was opened without the host's one-time token (and none is kept for this tab). */
export class MissingTokenError extends Error {
  constructor() {
    super('This page needs the address printed by the app (it carries a one-time token). Open that address again.');
    this.name = 'MissingTokenError';
  }
}

/** Electron's preload client when present, else the headless host's WebSocket. */
export function pickClient(win: Window): PickedClient {
  const fromPreload = electronClient(win);
  if (fromPreload) return { client: fromPreload, onLink: () => () => undefined, link: () => 'open' };
  const token = takeToken({ location: win.location, storage: win.sessionStorage, history: win.history });
  if (!token) throw new MissingTokenError();
  const client = createWebSocketClient({ url: hostSocketUrl(win.location.href, token) });
  return { client, onLink: (listener) => client.onLink(listener), link: () => client.link };
}
