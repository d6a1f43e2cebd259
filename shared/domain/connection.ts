import type { ServerId } from './server';

export const CONNECTION_STATES = ['disconnected', 'connecting', 'connected', 'reconnecting', 'failed'] as const;
export type ConnectionStateName = (typeof CONNECTION_STATES)[number];

export interface CoreInfo {
  family: 'v2ray' | 'xray' | 'sing-box';
  version: string;
  path: string;
}

export interface ConnectionState {
  state: ConnectionStateName;
  serverId: ServerId | null;
  /** e.g. "http://127.0.0.1:10809" while connected. */
  httpProxy: string | null;
  /** e.g. "socks5://127.0.0.1:10808" while connected. */
  socksProxy: string | null;
  since: number | null;
  /** Why the last connect failed or the core died, free of credentials. */
  error: string | null;
  core: CoreInfo | null;
}

/**
 * Bytes in one stats interval. `upBytes`/`downBytes` count only what went through the server
 * (Auto's stall, silence and idle rules read these); `direct` is what routing sent past it.
 */
export interface TrafficSample {
  at: number;
  intervalMs: number;
  upBytes: number;
  downBytes: number;
  /** Bytes that went direct (routing rules), absent when the core reports none. */
  direct?: { upBytes: number; downBytes: number };
}
