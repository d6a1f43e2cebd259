/**
 * The browser's client of the headless host: the contract over one WebSocket (framing in
 * shared/ipc/wire.ts). It validates nothing the host validates; it only keeps the link alive,
 * matches answers to calls and hands events to listeners.
 *
 * Link rules, as a user notices them:
 * - calls made while the socket is opening wait for it; calls made while the link is down fail at
 *   once with a clear error instead of hanging;
 * - when the link drops, every unanswered call is rejected (the host may or may not have run it,
 *   and the UI must not spin forever), and the client reconnects with back-off;
 * - every socket asks the host for the snapshot as its first frame (SNAPSHOT_ON_OPEN_PARAM), so
 *   the host sends it as soon as the connection is made, not once this page's busy main thread
 *   has seen the socket open and sent a request. The first socket's answers the app's first
 *   getSnapshot (made before or after it came); after a reconnect it goes to the `snapshot`
 *   listeners, because events sent while the link was down are lost.
 */
import type { EventName, EventPayloads, InvokeChannel, InvokeRequest, InvokeResponses, VpnClient } from '../../../shared/ipc/contract';
// The names alone: the contract's schemas (zod) are the host's to run, not the window's first bundle's.
import { INVOKE_CHANNELS } from '../../../shared/ipc/channels';
import { refusalFromWire } from '../../../shared/ipc/answer';
import { eventFromWire, type HostMessage, resultFromWire, SNAPSHOT_ON_OPEN, SNAPSHOT_ON_OPEN_PARAM } from '../../../shared/ipc/wire';
import { reconnectDelayMs } from './backoff';

/** The part of the browser's WebSocket this client uses (tests may hand in their own). */
export interface SocketLike {
  readonly readyState: number;
  send(data: string): void;
  close(code?: number, reason?: string): void;
  onopen: ((event: unknown) => void) | null;
  onmessage: ((event: { data: unknown }) => void) | null;
  onclose: ((event: { code: number; reason: string }) => void) | null;
  onerror: ((event: unknown) => void) | null;
}

export interface Timers {
  setTimeout(callback: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export type LinkState = 'connecting' | 'open' | 'reconnecting' | 'closed';

export interface WebSocketClientOptions {
  url: string;
  createSocket?: (url: string) => SocketLike;
  timers?: Timers;
  random?: () => number;
}

export type WebSocketClient = VpnClient & {
  readonly link: LinkState;
  /** Called on every change of the link state; returns an unsubscribe function. */
  onLink(listener: (state: LinkState) => void): () => void;
  /** Stops for good: closes the socket, rejects unanswered calls, no reconnect. */
  close(): void;
};

const OPEN = 1;

interface Pending {
  resolve(value: unknown): void;
  reject(error: Error): void;
}

interface Queued extends Pending {
  frame: (id: number) => string;
}

/** The socket's address with the request for the snapshot as its first frame. */
function withSnapshotOnOpen(url: string): string {
  const parsed = new URL(url);
  parsed.searchParams.set(SNAPSHOT_ON_OPEN_PARAM, SNAPSHOT_ON_OPEN);
  return parsed.toString();
}

export function createWebSocketClient(options: WebSocketClientOptions): WebSocketClient {
  const createSocket = options.createSocket ?? ((url: string) => new WebSocket(url) as unknown as SocketLike);
  const timers: Timers = options.timers ?? {
    setTimeout: (callback, ms) => globalThis.setTimeout(callback, ms),
    clearTimeout: (handle) => globalThis.clearTimeout(handle as ReturnType<typeof globalThis.setTimeout>),
  };
  const random = options.random ?? Math.random;

  const listeners = new Map<EventName, Set<(payload: never) => void>>();
  const linkListeners = new Set<(state: LinkState) => void>();
  const pending = new Map<number, Pending>();
  let queued: Queued[] = [];
  let nextId = 1;
  let socket: SocketLike | null = null;
  let link: LinkState = 'connecting';
  let failedAttempts = 0;
  let socketsCreated = 0;
  let reconnectTimer: unknown = null;
  /**
   * The current socket's pushed snapshot, while the app may still ask for it: the calls made before
   * it came wait here, and one that came before any call is kept for the first call.
   */
  let pushed: { waiting: Pending[]; snapshot?: EventPayloads['snapshot'] } | null = null;

  const setLink = (state: LinkState) => {
    if (state === link) return;
    link = state;
    for (const listener of [...linkListeners]) listener(state);
  };

  const dispatch = <E extends EventName>(event: E, payload: EventPayloads[E]) => {
    for (const listener of [...(listeners.get(event) ?? [])]) {
      try {
        (listener as (p: EventPayloads[E]) => void)(payload);
      } catch (error) {
        // One broken listener must not starve the others of the event.
        console.error(`a "${event}" listener failed`, error);
      }
    }
  };

  const sendFrame = (call: Pending, frame: (id: number) => string) => {
    const id = nextId++;
    pending.set(id, call);
    try {
      socket?.send(frame(id));
    } catch (error) {
      pending.delete(id);
      call.reject(new Error(`Could not send the request to the app: ${error instanceof Error ? error.message : String(error)}`));
    }
  };

  const failAll = (message: string) => {
    const calls = [...pending.values(), ...queued, ...(pushed?.waiting ?? [])];
    pending.clear();
    queued = [];
    pushed = null;
    for (const call of calls) call.reject(new Error(message));
  };

  const onMessage = (data: unknown) => {
    if (typeof data !== 'string') return;
    let message: HostMessage;
    try {
      message = JSON.parse(data) as HostMessage;
    } catch {
      console.warn('ignored a frame from the app that is not JSON');
      return;
    }
    if (message.kind === 'result') {
      const call = pending.get(message.id);
      if (!call) return;
      pending.delete(message.id);
      if (message.ok) call.resolve(message.value);
      else call.reject(refusalFromWire(message));
    } else if (message.kind === 'event' && message.event === 'snapshot' && pushed) {
      receivePushedSnapshot(eventFromWire('snapshot', message.payload) as EventPayloads['snapshot']);
    } else if (message.kind === 'event') {
      dispatch(message.event, eventFromWire(message.event, message.payload) as never);
    }
  };

  const receivePushedSnapshot = (snapshot: EventPayloads['snapshot']) => {
    const { waiting } = pushed!;
    const firstSocket = socketsCreated === 1;
    // Kept for the app's first request when it came first; otherwise whoever asked has it now.
    pushed = firstSocket && waiting.length === 0 ? { waiting, snapshot } : null;
    for (const call of waiting) call.resolve(snapshot);
    if (!firstSocket) dispatch('snapshot', snapshot);
  };

  /** The pushed snapshot for a getSnapshot call, when this socket's push is still the app's to take. */
  const takePushedSnapshot = (call: Pending): boolean => {
    if (!pushed) return false;
    if (pushed.snapshot === undefined) {
      pushed.waiting.push(call);
    } else {
      const { snapshot } = pushed;
      pushed = null;
      call.resolve(snapshot);
    }
    return true;
  };

  const connect = () => {
    reconnectTimer = null;
    socketsCreated += 1;
    const current = createSocket(withSnapshotOnOpen(options.url));
    socket = current;
    pushed = { waiting: [] };
    current.onopen = () => {
      if (socket !== current) return;
      failedAttempts = 0;
      setLink('open');
      const waiting = queued;
      queued = [];
      for (const call of waiting) sendFrame(call, call.frame);
    };
    current.onmessage = (event) => {
      if (socket === current) onMessage(event.data);
    };
    current.onerror = () => undefined; // the close event that follows carries what we need
    current.onclose = (event) => {
      if (socket !== current) return;
      socket = null;
      if (link === 'closed') return;
      const why = event.reason ? `: ${event.reason}` : '';
      failAll(`Lost the connection to the app${why}; reconnecting. The request may not have been carried out.`);
      failedAttempts += 1;
      setLink('reconnecting');
      reconnectTimer = timers.setTimeout(connect, reconnectDelayMs(failedAttempts, random));
    };
  };

  function invoke<C extends InvokeChannel>(channel: C, payload: InvokeRequest<C>): Promise<InvokeResponses[C]> {
    return new Promise<InvokeResponses[C]>((resolve, reject) => {
      const call: Pending = { resolve: (value) => resolve(resultFromWire(channel, value) as InvokeResponses[C]), reject };
      const frame = (id: number) => JSON.stringify({ kind: 'invoke', id, channel, payload });
      if (link === 'closed') {
        reject(new Error('The connection to the app is closed.'));
      } else if (channel === 'getSnapshot' && socket && takePushedSnapshot({ resolve: (value) => resolve(value as InvokeResponses[C]), reject })) {
        // answered by the snapshot this socket's host pushes (or pushed) unasked
      } else if (socket && socket.readyState === OPEN) {
        sendFrame(call, frame);
      } else if (socket) {
        queued.push({ ...call, frame }); // still opening: send as soon as it is open
      } else {
        reject(new Error('Not connected to the app right now; reconnecting. Try again in a moment.'));
      }
    });
  }

  const client = {
    get link() {
      return link;
    },
    on<E extends EventName>(event: E, listener: (payload: EventPayloads[E]) => void) {
      let set = listeners.get(event);
      if (!set) listeners.set(event, (set = new Set()));
      set.add(listener as (payload: never) => void);
      return () => {
        set.delete(listener as (payload: never) => void);
      };
    },
    onLink(listener: (state: LinkState) => void) {
      linkListeners.add(listener);
      return () => {
        linkListeners.delete(listener);
      };
    },
    close() {
      setLink('closed');
      if (reconnectTimer !== null) timers.clearTimeout(reconnectTimer);
      reconnectTimer = null;
      const current = socket;
      socket = null;
      current?.close(1000, 'client closed');
      failAll('The connection to the app was closed.');
    },
  } as WebSocketClient;

  for (const channel of INVOKE_CHANNELS) {
    (client as unknown as Record<string, unknown>)[channel] = (payload: never) => invoke(channel, payload);
  }

  connect();
  return client;
}
