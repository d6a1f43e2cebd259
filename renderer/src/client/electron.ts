import { type BridgeApi, clientOverBridge } from '../../../shared/ipc/answer';
import type { VpnClient } from '../../../shared/ipc/contract';

declare global {
  interface Window {
    /** Exposed by the Electron preload: one method per invoke channel answering an InvokeAnswer, plus `on(event, listener)`. */
    vpn?: BridgeApi;
  }
}

/**
 * The client over what the Electron preload exposed, if this page runs inside the app's window.
 * A refusal arrives as an answer and is thrown here, in the page's world, with its code: thrown in
 * the preload's world it would cross the contextBridge with only its message.
 */
export function electronClient(win: Pick<Window, 'vpn'>): VpnClient | null {
  return win.vpn ? clientOverBridge(win.vpn) : null;
}
