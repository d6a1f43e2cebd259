/** The tunnel's state and the traffic through it. */
import type { ConnectionState, TrafficSample } from '../../../shared/domain/connection';
import type { ServerId } from '../../../shared/domain/server';
import { type AppState, type SliceDeps } from './types';
import { type ActionResult, request } from './request';

/** Samples kept for the rate (a few seconds are enough to smooth one-second stats). */
const TRAFFIC_SAMPLES_KEPT = 30;
/** The rate is averaged over this many latest samples. */
const RATE_WINDOW_SAMPLES = 3;

/** A stretch of time the tunnel was up through one server (`until` null: it still is). */
export interface ConnectionSession {
  serverId: ServerId;
  since: number;
  until: number | null;
}

/** Sessions kept for the Auto timeline's band (its longest window is 2 h). */
const SESSIONS_KEPT = 50;

export interface ConnectionSliceState {
  connection: ConnectionState;
  traffic: TrafficSample[];
  /**
   * The connections this window has seen, oldest first: the current one (from the snapshot, with
   * the time it came up) and those after it. The timeline draws who carried the traffic from
   * them, also for the time before Auto's first decision.
   */
  sessions: ConnectionSession[];
}

export interface ConnectionActions {
  setConnection(connection: ConnectionState): void;
  pushTraffic(sample: TrafficSample): void;
  /**
   * With a server: the user's own choice (the host turns Auto off for its subscription). Without
   * (the Connect button): the host decides which server, as it does for the tray and the CLI.
   */
  connect(serverId?: ServerId): Promise<ActionResult<ConnectionState>>;
  disconnect(): Promise<ActionResult<ConnectionState>>;
}

export type ConnectionSlice = ConnectionSliceState & ConnectionActions;

export const disconnectedState: ConnectionState = {
  state: 'disconnected',
  serverId: null,
  httpProxy: null,
  socksProxy: null,
  since: null,
  error: null,
  core: null,
};

export const connectionInitialState: ConnectionSliceState = {
  connection: disconnectedState,
  traffic: [],
  sessions: [],
};

/**
 * The sessions after a new connection state: a connection that came up opens a session (closing
 * the open one when it came up); any other state closes the open one when it began.
 */
export function sessionsAfter(sessions: readonly ConnectionSession[], connection: ConnectionState): ConnectionSession[] {
  const last = sessions[sessions.length - 1];
  const open = last && last.until === null ? last : null;
  const closedAt = (at: number | null) => (open ? [...sessions.slice(0, -1), { ...open, until: Math.max(open.since, at ?? open.since) }] : [...sessions]);
  if (connection.state === 'connected' && connection.serverId !== null && connection.since !== null) {
    if (open && open.serverId === connection.serverId && open.since === connection.since) return sessions as ConnectionSession[];
    return [...closedAt(connection.since), { serverId: connection.serverId, since: connection.since, until: null }].slice(-SESSIONS_KEPT);
  }
  return open ? closedAt(connection.since) : (sessions as ConnectionSession[]);
}

export function createConnectionSlice(deps: SliceDeps): ConnectionSlice {
  const { set, get, client } = deps;
  const connect = async (serverId?: ServerId) => {
    const result = await request(deps, 'connect', () => client.connect(serverId === undefined ? {} : { serverId }), { notify: false });
    if (result.ok) {
      get().setConnection(result.value);
      return result;
    }
    // A refusal with a code is said in the user's language (the host's words as details), one
    // without in the host's words; the one a newcomer meets first, no server at all, says what to do.
    const noServers = serverId === undefined && get().subscriptions.every((s) => s.servers.length === 0);
    get().pushNotice(
      noServers
        ? { tone: 'error', what: 'connect', key: 'notice.noServer' }
        : { tone: 'error', what: 'connect', text: result.error, ...(result.code ? { code: result.code } : {}) },
    );
    return result;
  };
  return {
    ...connectionInitialState,
    setConnection: (connection) => {
      const sameSession = connection.state === 'connected' && get().connection.serverId === connection.serverId;
      const sessions = sessionsAfter(get().sessions, connection);
      set(sameSession ? { connection, sessions } : { connection, sessions, traffic: [] });
    },
    pushTraffic: (sample) => {
      const traffic = [...get().traffic, sample];
      set({ traffic: traffic.length > TRAFFIC_SAMPLES_KEPT ? traffic.slice(-TRAFFIC_SAMPLES_KEPT) : traffic });
    },
    connect,
    disconnect: async () => {
      const result = await request(deps, 'disconnect', () => client.disconnect({}));
      if (result.ok) get().setConnection(result.value);
      return result;
    },
  };
}

export interface TrafficRates {
  upBytesPerSecond: number;
  downBytesPerSecond: number;
}

/** Bytes per second up and down, averaged over the latest samples; zero while not connected. */
export function selectTrafficRates(state: Pick<AppState, 'traffic' | 'connection'>): TrafficRates {
  if (state.connection.state !== 'connected' || state.traffic.length === 0) return { upBytesPerSecond: 0, downBytesPerSecond: 0 };
  const window = state.traffic.slice(-RATE_WINDOW_SAMPLES);
  const ms = window.reduce((sum, s) => sum + Math.max(0, s.intervalMs), 0);
  if (ms <= 0) return { upBytesPerSecond: 0, downBytesPerSecond: 0 };
  const up = window.reduce((sum, s) => sum + s.upBytes, 0);
  const down = window.reduce((sum, s) => sum + s.downBytes, 0);
  return { upBytesPerSecond: (up * 1000) / ms, downBytesPerSecond: (down * 1000) / ms };
}

/** Whether the tunnel is up or on its way up (the Connect button turns into Disconnect). */
export function isActive(state: Pick<AppState, 'connection'>): boolean {
  return state.connection.state !== 'disconnected' && state.connection.state !== 'failed';
}
