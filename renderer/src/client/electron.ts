import type { VpnClient } from '../../../shared/ipc/contract';

declare global {
  interface Window {
    /** Exposed by the Electron preload: one method per invoke channel plus `on(event, listener)`. */
    vpn?: VpnClient;
  }
}

/** The client the Electron preload exposed, if this page runs inside the app's window. */
export function electronClient(win: Pick<Window, 'vpn'>): VpnClient | null {
  return win.vpn ?? null;
}
