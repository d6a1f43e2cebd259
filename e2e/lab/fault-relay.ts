/**
 * What the lab's control operations need of a server's fault relay, whether it carries TCP
 * (relay.ts) or datagrams (relay-udp.ts): the same faults, the same counters.
 */
import type { FaultChange, RelayCounters } from './relay';
import type { FaultState } from './relay-policy';

export interface FaultRelay {
  /** "127.0.x.y:PORT": what the client dials or sends to. */
  readonly address: string;
  readonly fault: Readonly<Omit<FaultState, 'since'>>;
  readonly counters: RelayCounters;
  start(): Promise<void>;
  setFault(change: FaultChange): Promise<void>;
  stop(): Promise<void>;
}
