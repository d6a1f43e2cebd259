/**
 * The Lab panel's actions (demo mode only): faults injected into the lab world through the host,
 * so a newcomer can watch Auto and the timeline react.
 */
import type { LabFault } from '../../../shared/ipc/contract';
import type { ServerId } from '../../../shared/domain/server';
import { type SliceDeps } from './types';
import { type ActionResult, request } from './request';

export interface LabSlice {
  /** The lab's network was cut from this window (the host does not report it back). */
  labOffline: boolean;
  labFault(serverId: ServerId, fault: LabFault): Promise<ActionResult<null>>;
  labSetNetwork(offline: boolean): Promise<ActionResult<null>>;
  /** Every server back to healthy and the network back on. */
  labClearFaults(): Promise<ActionResult<null>>;
}

export function createLabSlice(deps: SliceDeps): LabSlice {
  const { set, get, client } = deps;
  const setNetwork = async (offline: boolean) => {
    const result = await request(deps, 'lab', () => client.labControl({ action: 'network', state: offline ? 'offline' : 'online' }));
    if (result.ok) set({ labOffline: offline });
    return result;
  };
  return {
    labOffline: false,
    labFault: (serverId, fault) => request(deps, 'lab', () => client.labControl({ action: 'fault', serverId, fault })),
    labSetNetwork: setNetwork,
    labClearFaults: async () => {
      const ids = get().subscriptions.flatMap((s) => s.servers.map((server) => server.id));
      const network = await setNetwork(false);
      if (!network.ok) return network;
      for (const serverId of ids) {
        const result = await request(deps, 'lab', () => client.labControl({ action: 'fault', serverId, fault: 'none' }));
        if (!result.ok) return result;
      }
      return { ok: true, value: null };
    },
  };
}
