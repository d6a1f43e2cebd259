/**
 * What Auto needs from the rest of the engine. The lead wires the real services to these (the
 * monitor, the tunnel controller, the subscription store, a JsonFile); tests and the simulator
 * (app/auto/sim/) implement them on a virtual clock.
 */
import type { Measurement, ProbeFailure } from '../../shared/domain/measurement';
import type { ServerId } from '../../shared/domain/server';
import type { Verdict } from '../../shared/domain/status';
import type { TransferVerdict } from '../../shared/domain/transfer';
import type { PersistedAutoState } from './policy/state';
import type { SubscriptionServers, TransferSeen } from './policy/world';

export interface AutoProbeResult {
  /** null: no answer within the timeout, or a failure. */
  delayMs: number | null;
  error?: ProbeFailure;
}

/**
 * One URL test through a server, the way the monitor's on-demand path runs it (single-flight: a
 * test of a server already in flight is joined). It does NOT record the result: Auto decides
 * whether it is written (results taken while the network was gone are not). Should resolve within
 * `timeoutMs`; the runtime gives up on it a little after that in any case. Never rejects.
 */
export interface AutoProbePort {
  probe(serverId: ServerId, timeoutMs: number): Promise<AutoProbeResult>;
  /**
   * The monitor's transfer test of the server, now (a check started by stalled traffic follows
   * the current server's ping answer with it, a freeze check its candidates', and the watch tests
   * the current server with it); its result becomes the server's latest. Resolves
   * with its verdict, null when it could not be made; never rejects. Absent: no transfer tests.
   */
  transferTest?(serverId: ServerId): Promise<TransferVerdict | null>;
  /**
   * The monitor's ordinary event test of a server Auto just switched to without probing it
   * (turned on, a vanished or marked server): run at once and recorded by the monitor as such.
   */
  eventTest(serverId: ServerId): void;
}

/** The monitor's store of measurements, read for scores and written with Auto's check results. */
export interface MeasurementPort {
  /** Stored measurements of the server (the monitor keeps the last 5, of any method). */
  measurements(serverId: ServerId): readonly Measurement[];
  /** The server's latest result came from the previous run's cache and was not retested yet. */
  fromCache(serverId: ServerId): boolean;
  throughputBps(serverId: ServerId): number | null;
  /** The verdict of the server's latest transfer test, when one ran (absent: none are made). */
  transferVerdict?(serverId: ServerId): TransferVerdict | null;
  /** The server's latest transfer test with its time and bytes, when one ran. */
  transferResult?(serverId: ServerId): TransferSeen | null;
  record(serverId: ServerId, measurement: Measurement): void;
}

/** Optional: reachability verdicts (spec/reachability.md); `blocked-here` servers sink in the queue. */
export interface ReachabilityPort {
  verdict(serverId: ServerId): Verdict | null;
}

export interface TunnelPort {
  /**
   * Moves the tunnel to the server: reconnects when connected, otherwise makes it the server the
   * next connect uses. A rejection is taken as a dial failure of that server.
   */
  switchTo(serverId: ServerId): Promise<void>;
  /** The server the tunnel is on (or will connect to). */
  current(): ServerId | null;
  connected(): boolean;
}

/** The subscriptions in list order, each with its server ids in subscription order. */
export interface SubscriptionsPort {
  list(): readonly SubscriptionServers[];
}

/** Where Auto keeps what must survive a restart (the lead backs it with a JsonFile). */
export interface AutoStatePort {
  save(state: PersistedAutoState): void | Promise<void>;
}
