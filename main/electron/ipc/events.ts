import type { WebContents } from 'electron';
import { EVENT_NAMES, type VpnClient } from '../../../shared/ipc/contract';
import { eventChannelName } from './channels';

/**
 * Forwards every contract event of the engine to the app window as `vpn:event:<name>`. Events
 * raised while the window is closed or being destroyed are dropped: the page asks for a fresh
 * snapshot when it (re)loads.
 */
export function forwardEngineEvents(engine: Pick<VpnClient, 'on'>, target: () => Pick<WebContents, 'send' | 'isDestroyed'> | null): () => void {
  const offs = EVENT_NAMES.map((name) =>
    engine.on(name, (payload) => {
      const contents = target();
      if (contents && !contents.isDestroyed()) contents.send(eventChannelName(name), payload);
    }),
  );
  return () => offs.forEach((off) => off());
}
