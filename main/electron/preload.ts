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
import { answerValue, type InvokeAnswer } from '../../shared/ipc/answer';
import type { VpnClient } from '../../shared/ipc/contract';
import { EXPOSED_API_NAME, eventChannelName, invokeChannelName } from './ipc/channels';

type Invoke = (channel: string, payload: unknown) => Promise<unknown>;
type Subscribe = (channel: string, listener: (event: IpcRendererEvent, payload: unknown) => void) => void;

export interface RendererIpc {
  invoke: Invoke;
  on: Subscribe;
  removeListener: Subscribe;
}

const KNOWN_EVENTS: ReadonlySet<string> = new Set(EVENT_NAMES);

export function buildPreloadApi(ipc: RendererIpc): VpnClient {
  const api: Record<string, unknown> = {};
  for (const channel of INVOKE_CHANNELS) {
    const name = invokeChannelName(channel);
    // Exactly one argument crosses: whatever else a caller passes is dropped here. The engine's
    // refusal comes back as an answer, and is thrown here with its code (main/electron/ipc/handlers.ts).
    api[channel] = async (request: unknown) => answerValue((await ipc.invoke(name, request)) as InvokeAnswer);
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
  return Object.freeze(api) as VpnClient;
}

contextBridge.exposeInMainWorld(EXPOSED_API_NAME, buildPreloadApi(ipcRenderer));
