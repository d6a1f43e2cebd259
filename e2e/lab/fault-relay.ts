/**
 * What the lab's control operations need of a server's fault relay, whether it carries TCP
 * (relay.ts) or datagrams (relay-udp.ts): the same faults, the same counters.
 */
import type { FaultMode, FaultState } from './relay-policy';

export interface FaultChange {
  fault?: FaultMode;
  latencyMs?: number;
  jitterMs?: number;
  periodMs?: number;
  bandwidthKbps?: number;
  afterBytes?: number;
  bytesPerSecond?: number;
}

export interface RelayCounters {
  connections: number;
  active: number;
  bytesUp: number;
  bytesDown: number;
  /** A UDP relay on a port range: datagrams received on each front port (did a client hop?). */
  datagramsByPort?: Record<number, number>;
}

export interface FaultRelay {
  /** "127.0.x.y:PORT": what the client dials or sends to. */
  readonly address: string;
  readonly fault: Readonly<Omit<FaultState, 'since'>>;
  readonly counters: RelayCounters;
  start(): Promise<void>;
  setFault(change: FaultChange): Promise<void>;
  stop(): Promise<void>;
}
