/** What the tunnel publishes: Auto, the monitor, the captures and the hosts listen; the tunnel never calls up. */
import type { ConnectionState, TrafficSample } from '../../shared/domain/connection';
import type { ServerId } from '../../shared/domain/server';
import type { OutboundFailureKind } from './core-log';

export interface DialFailureEvent {
  at: number;
  serverId: ServerId;
  kind: OutboundFailureKind;
  /** The address the core names (host:port), when it names one. */
  address: string | null;
  /** Where the failed session was going (host:port), when the core's route line said. */
  destination: string | null;
  /** The core's words, shortened and redacted. */
  detail: string;
  /** The failing hop was the upstream of a chained server. */
  upstream: boolean;
}

/** A dial through a server group's pick failed: the group's failure, never the main connection's. */
export interface GroupDialFailureEvent {
  at: number;
  group: string;
  /** The group's pick when it failed. */
  serverId: ServerId;
  kind: OutboundFailureKind;
  detail: string;
}

export interface DialRetryEvent {
  at: number;
  serverId: ServerId;
  address: string;
  attempt: number;
}

export interface CoreExitEvent {
  at: number;
  serverId: ServerId;
  description: string;
  attempt: number;
  restartInMs: number;
}

export interface RestartedEvent {
  at: number;
  serverId: ServerId;
  attempt: number;
  /** From the exit to the new core accepting connections. */
  downMs: number;
  startMs: number;
}

export interface TunnelEvents {
  state: ConnectionState;
  traffic: TrafficSample;
  dialFailure: DialFailureEvent;
  groupDialFailure: GroupDialFailureEvent;
  /** The earliest sign of a failing dial: the core retries it (~0.2 s in; the verdict follows at ~2 s). */
  dialRetrying: DialRetryEvent;
  coreExit: CoreExitEvent;
  restarted: RestartedEvent;
  /** A LAN device's login to the shared proxies was refused (SOCKS5; the core logs no HTTP refusal). */
  loginRefused: { at: number };
}
