/**
 * The simulated world a scenario describes: servers that answer probes after their delay (or
 * never), a network that may be online, offline (the elevator: nothing gets through, the OS
 * notices nothing) or gone, a user who sends traffic or not, and a tunnel that carries it through
 * the current server. It implements Auto's ports the way the real engine does, on a virtual clock.
 */
import type { TrafficSample } from '../../../shared/domain/connection';
import type { Measurement } from '../../../shared/domain/measurement';
import type { ServerId } from '../../../shared/domain/server';
import type { Clock } from '../../clock';
import type { SubscriptionServers } from '../policy/world';
import type { AutoProbePort, AutoProbeResult, MeasurementPort, SubscriptionsPort, TunnelPort } from '../ports';
import type { SimServerState } from './scenario';
import type { TransferSeen } from '../policy/world';
import type { TransferVerdict } from '../../../shared/domain/transfer';

export type SimTransfer = 'ok' | 'freezes' | 'throttled';

/** The tunnel's stats interval the simulator reports traffic in. */
export const SAMPLE_INTERVAL_MS = 500;
/** Bytes per interval while the user is active (about 256 kbit/s up, 2.5 Mbit/s down). */
const UP_BYTES = 16_000;
const DOWN_BYTES = 160_000;
/** Through a freezing server each new connection gets its first bytes, then nothing: a trickle. */
const FROZEN_DOWN_BYTES = 8_000;
/** What the transfer test's 64 KB takes, by verdict: a freeze is 16 KB then 2 s of nothing. */
const TRANSFER_MS = { ok: 400, throttled: 2_000, freezes: 2_200 } as const;
const FROZEN_AFTER_BYTES = 16_384;
const TRANSFER_BYTES = 65_536;
/** The monitor keeps the last 5 measurements of a server, whatever their method. */
const KEPT = 5;

export type SimNetwork = 'online' | 'offline' | 'none';
/** `sparse`: a background app that sends in one 500 ms interval every 3 s (never 5 s in a row). */
export type SimTraffic = 'active' | 'idle' | 'sparse';
const SPARSE_EVERY = 6;

export class SimWorld implements AutoProbePort, MeasurementPort, TunnelPort, SubscriptionsPort {
  readonly servers = new Map<ServerId, SimServerState>();
  /** What a transfer test through each server finds now (absent: `ok`). */
  readonly transfers = new Map<ServerId, SimTransfer>();
  private readonly transferResults = new Map<ServerId, TransferSeen>();
  network: SimNetwork = 'online';
  traffic: SimTraffic = 'active';
  subscriptionList: SubscriptionServers[];
  private readonly store = new Map<ServerId, Measurement[]>();
  /** Every server ever listed, in first-seen order (for the end line). */
  readonly known: ServerId[] = [];
  private currentId: ServerId | null = null;
  private isConnected = false;
  private reconnectingUntil = 0;
  private readonly start: number;

  /** Receives each transfer test the simulated monitor ran (a `transfer-test` line). */
  onTransferTest: ((test: { at: number; id: ServerId; verdict: TransferVerdict; bytes: number }) => void) | null = null;
  /** Receives each event test the simulated monitor ran (the run prints it as an `event-test` line). */
  onEventTest: ((test: { at: number; id: ServerId; delay: number | null }) => void) | null = null;

  constructor(
    private readonly clock: Clock,
    subscriptions: SubscriptionServers[],
    private readonly reconnectMs: number,
    /** The monitor's url_test_timeout, which its event tests take. */
    private readonly testTimeoutMs = 5000,
  ) {
    this.start = clock.now();
    this.subscriptionList = subscriptions;
    for (const s of subscriptions) this.learn(s.serverIds);
  }

  // SubscriptionsPort
  list(): readonly SubscriptionServers[] {
    return this.subscriptionList;
  }

  /** A subscription update: new servers are down until the world says otherwise. */
  updateSubscription(id: string, serverIds: ServerId[]): void {
    this.subscriptionList = this.subscriptionList.map((s) => (s.id === id ? { id, serverIds } : s));
    this.learn(serverIds);
  }

  // AutoProbePort: a URL test through the server, answered after the server's delay.
  probe(serverId: ServerId, timeoutMs: number): Promise<AutoProbeResult> {
    const state = this.servers.get(serverId) ?? 'down';
    const online = this.network === 'online';
    return new Promise((resolve) => {
      if (online && typeof state === 'number' && state < timeoutMs) {
        this.clock.after(state, () => resolve({ delayMs: state }));
      } else if (online && state === 'refused') {
        this.clock.after(1, () => resolve({ delayMs: null, error: 'refused' }));
      } else {
        this.clock.after(timeoutMs, () => resolve({ delayMs: null, error: 'timeout' }));
      }
    });
  }

  /**
   * The monitor's transfer test: a server that does not answer (or a network that lets nothing
   * through) fails it after the probe timeout; one that answers finds what the world says.
   */
  transferTest(serverId: ServerId): Promise<TransferVerdict | null> {
    const state = this.servers.get(serverId) ?? 'down';
    const answers = this.network === 'online' && typeof state === 'number';
    const behaviour = this.transfers.get(serverId) ?? 'ok';
    const verdict: TransferVerdict = answers ? behaviour : 'failed';
    const bytes = verdict === 'freezes' ? FROZEN_AFTER_BYTES : verdict === 'failed' ? 0 : TRANSFER_BYTES;
    const tookMs = answers ? (typeof state === 'number' ? state : 0) + TRANSFER_MS[behaviour] : this.testTimeoutMs;
    return new Promise((resolve) => {
      this.clock.after(tookMs, () => {
        const at = this.clock.now();
        this.transferResults.set(serverId, { verdict, at, bytes, fromCache: false });
        this.onTransferTest?.({ at, id: serverId, verdict, bytes });
        resolve(verdict);
      });
    });
  }

  transferVerdict(serverId: ServerId): TransferVerdict | null {
    return this.transferResults.get(serverId)?.verdict ?? null;
  }

  transferResult(serverId: ServerId): TransferSeen | null {
    return this.transferResults.get(serverId) ?? null;
  }

  /** The monitor's event test: probed at once and recorded as the monitor records it. */
  eventTest(serverId: ServerId): void {
    void this.probe(serverId, this.testTimeoutMs).then((result) => {
      const at = this.clock.now();
      this.record(serverId, { at, method: 'url', delayMs: result.delayMs, ...(result.error ? { error: result.error } : {}) });
      this.onEventTest?.({ at, id: serverId, delay: result.delayMs });
    });
  }

  // MeasurementPort
  measurements(serverId: ServerId): readonly Measurement[] {
    return this.store.get(serverId) ?? [];
  }
  fromCache(): boolean {
    return false;
  }
  throughputBps(): number | null {
    return null;
  }
  record(serverId: ServerId, measurement: Measurement): void {
    const list = [...(this.store.get(serverId) ?? []), measurement].sort((a, b) => a.at - b.at);
    this.store.set(serverId, list.slice(-KEPT));
  }

  // TunnelPort
  async switchTo(serverId: ServerId): Promise<void> {
    if (this.isConnected && serverId !== this.currentId) this.reconnectingUntil = this.clock.now() + this.reconnectMs;
    this.currentId = serverId;
  }
  current(): ServerId | null {
    return this.currentId;
  }
  connected(): boolean {
    return this.isConnected;
  }
  connect(serverId: ServerId): void {
    this.currentId = serverId;
    this.isConnected = true;
  }

  /** What the tunnel's stats report for the interval ending now. */
  sample(): TrafficSample {
    const interval = Math.round((this.clock.now() - this.start) / SAMPLE_INTERVAL_MS);
    const sending = this.traffic === 'active' || (this.traffic === 'sparse' && interval % SPARSE_EVERY === 0);
    const active = sending && this.isConnected;
    return {
      at: this.clock.now(),
      intervalMs: SAMPLE_INTERVAL_MS,
      upBytes: active ? UP_BYTES : 0,
      downBytes: active && this.flowing() ? (this.transfers.get(this.currentId!) === 'freezes' ? FROZEN_DOWN_BYTES : DOWN_BYTES) : 0,
    };
  }

  /**
   * What a server group's own counters report for the interval ending now, on its pick: the
   * user's traffic to the group's sites follows the main traffic's pattern, and a group switch is
   * a live swap (no reconnect pause).
   */
  groupSample(pick: ServerId | null): { upBytes: number; downBytes: number } {
    const interval = Math.round((this.clock.now() - this.start) / SAMPLE_INTERVAL_MS);
    const sending = this.isConnected && pick !== null && (this.traffic === 'active' || (this.traffic === 'sparse' && interval % SPARSE_EVERY === 0));
    const state = pick === null ? 'down' : (this.servers.get(pick) ?? 'down');
    const flowing = this.network === 'online' && typeof state === 'number';
    return { upBytes: sending ? UP_BYTES / 4 : 0, downBytes: sending && flowing ? DOWN_BYTES / 4 : 0 };
  }

  /** The core reports a failed dial for each attempt while the current server refuses connections. */
  dialFailing(): boolean {
    return this.traffic !== 'idle' && this.isConnected && this.network === 'online' && this.currentState() === 'refused' && !this.reconnecting();
  }

  /** Each server's stored delays, oldest first, as the scenario's `history` writes them. */
  history(): Record<ServerId, (number | null)[]> {
    return Object.fromEntries(this.known.map((id) => [id, this.measurements(id).map((m) => m.delayMs)]));
  }

  private flowing(): boolean {
    return this.network === 'online' && typeof this.currentState() === 'number' && !this.reconnecting();
  }

  private reconnecting(): boolean {
    return this.clock.now() < this.reconnectingUntil;
  }

  private currentState(): SimServerState {
    return this.currentId === null ? 'down' : (this.servers.get(this.currentId) ?? 'down');
  }

  private learn(ids: readonly ServerId[]): void {
    for (const id of ids) if (!this.known.includes(id)) this.known.push(id);
  }
}
