/**
 * The only bridge between the page and the app: `window.vpn`, one function per operation of the
 * IPC contract plus `on(event, listener)` for the contract's events. The page never sees
 * `ipcRenderer`, Electron's event objects or anything of Node; the main process validates every
 * payload again (this file is not trusted to do it).
 *
 * It runs sandboxed, where only `require('electron')` works, so it is bundled into one CommonJS
 * file (dist/main/preload.cjs) by `npm run build:electron` (main/electron/build/).
 */
import { contextBridge, type IpcRendererEvent, ipcRenderer } from 'electron';
import { EVENT_NAMES, type EventName, INVOKE_CHANNELS } from '../../shared/ipc/channels';
import type { BridgeApi } from '../../shared/ipc/answer';
import { EXPOSED_API_NAME, eventChannelName, invokeChannelName } from './ipc/channels';

type Invoke = (channel: string, payload: unknown) => Promise<unknown>;
type Subscribe = (channel: string, listener: (event: IpcRendererEvent, payload: unknown) => void) => void;

export interface RendererIpc {
  invoke: Invoke;
  on: Subscribe;
  removeListener: Subscribe;
}

const KNOWN_EVENTS: ReadonlySet<string> = new Set(EVENT_NAMES);

export function buildPreloadApi(ipc: RendererIpc): BridgeApi {
  const api: Record<string, unknown> = {};
  for (const channel of INVOKE_CHANNELS) {
    const name = invokeChannelName(channel);
    // Exactly one argument crosses: whatever else a caller passes is dropped here. The answer goes
    // to the page as it came (a value or a refusal with its code): an error thrown across the
    // contextBridge would keep only its message (renderer/src/client/electron.ts throws it there).
    api[channel] = (request: unknown) => ipc.invoke(name, request);
  }
  api.on = (event: EventName, listener: (payload: unknown) => void): (() => void) => {
    if (typeof event !== 'string' || !KNOWN_EVENTS.has(event)) throw new Error(`unknown event "${String(event)}"`);
    if (typeof listener !== 'function') throw new Error('on(event, listener): the listener must be a function');
    const name = eventChannelName(event);
    // The page gets the payload only, never the IpcRendererEvent (it carries `sender`).
    const forward = (_event: IpcRendererEvent, payload: unknown) => listener(payload);
    ipc.on(name, forward);
    return () => ipc.removeListener(name, forward);
  };
  return Object.freeze(api) as BridgeApi;
}

contextBridge.exposeInMainWorld(EXPOSED_API_NAME, buildPreloadApi(ipcRenderer));
