import type { ServerId } from './server';

export const CONNECTION_STATES = ['disconnected', 'connecting', 'connected', 'reconnecting', 'failed'] as const;
export type ConnectionStateName = (typeof CONNECTION_STATES)[number];

export interface CoreInfo {
  family: 'v2ray' | 'xray' | 'sing-box';
  version: string;
  path: string;
}

/**
 * The detected core as the UI is told of it: which core, and which of the settings' optional
 * features it can carry out (each confirmed by the binary's config test), so a setting it cannot
 * do is shown as not available instead of silently doing nothing.
 */
export interface CoreSummary extends CoreInfo {
  /** TLS ClientHello fragment and UDP noise (Xray's freedom options). */
  antiDpi: { fragment: boolean; noise: boolean };
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
  /**
   * Each server group's own bytes (by group name), read from its outbounds' counters apart from
   * the main connection's; `upBytes`/`downBytes` above never include them. Absent without groups.
   */
  groups?: Record<string, { upBytes: number; downBytes: number }>;
}
